/** Every client route in one place, so links and the router cannot drift apart. */
export const paths = {
  home: '/',
  login: '/login',
  register: '/register',
  forgotPassword: '/forgot-password',
  verifyAccount: '/verify-account',
  resetPassword: '/reset-password',
  shareImage: '/share-image',
  /** The share link page for someone without an account; the token follows in the fragment (`/x#<token>`). */
  externalLink: '/x',
  dashboard: '/dashboard',
  adminDashboard: '/admin-dashboard',
  profile: '/profile',
  userProfile: '/user-profile',
  upload: '/upload',
  viewImages: '/view-images',
  messages: '/messages',
  auditLogs: '/audit-logs',
  rolesPermissions: '/roles-permissions',
  appSettings: '/appsettings',
  aiAnalysis: '/ai-analysis',
  dicomViewer: '/dicom',
  /** The stack viewer of one series of a study (a route pattern: generatePath(paths.series, { studyUid, seriesUid })). */
  series: '/studies/:studyUid/series/:seriesUid',
  /** A study page: `${study}/:studyUid`; its series open at `${study}/:studyUid/series/:seriesUid`. */
  study: '/studies',
} as const;
