/** API paths shared by server and web (the path constants of `docs/product.md` › Calls, under /api). */
export const ApiPaths = {
  register: '/auth/register',
  confirm: '/auth/confirm',
  resendCode: '/auth/resend-code',
  login: '/auth/login',
  logout: '/auth/logout',
  session: '/auth/session',
  forgotPassword: '/auth/forgot-password',
  resetPassword: '/auth/reset-password',
  profile: '/users/profile',
  users: '/users',
  toggleUserStatus: '/users/toggleUserStatus',
  activateUser: '/users/activate',
  uploadImage: '/upload/image',
  allImages: '/upload/images',
  sharedImages: '/upload/shared-images',
  myImages: '/upload/my-images',
  shareRequest: '/sharing/request',
  shareVerify: '/sharing/verify',
  auditLogs: '/audit/logs',
  roles: '/roles',
  permissions: '/roles/permissions',
  settings: '/appsetting',
  chatList: '/message/chat-list',
  chat: '/message/chat',
  sendMessage: '/message/send',
  analysis: '/analysis',
  studies: '/studies',
} as const;

/** Where the bytes of an image are read (bearer header only; never a token in the URL). */
export const ImagePaths = {
  content: (id: string) => `/api/images/${id}/content`,
  thumbnail: (id: string) => `/api/images/${id}/thumbnail`,
} as const;

export const DicomPaths = {
  metadata: (id: string) => `/api/images/${id}/dicom/metadata`,
  dicomweb: '/api/dicomweb',
} as const;

/** Where a study's routes are (bearer header only). */
export const StudyPaths = {
  list: '/studies',
  detail: (studyUid: string) => `/studies/${studyUid}`,
  share: (studyUid: string) => `/studies/${studyUid}/share`,
  shares: (studyUid: string) => `/studies/${studyUid}/shares`,
  revoke: (studyUid: string, id: string) => `/studies/${studyUid}/shares/${id}`,
} as const;

/** Server paths of external shares (absolute, under /api). */
export const ExternalSharePaths = {
  shares: '/api/external-shares',
  share: (id: string) => `/api/external-shares/${id}`,
  reissue: (id: string) => `/api/external-shares/${id}/reissue`,
  link: '/api/external/link',
  session: '/api/external/session',
  view: '/api/external/view',
  content: (id: string) => `/api/external/images/${id}/content`,
  thumbnail: (id: string) => `/api/external/images/${id}/thumbnail`,
  download: (id: string) => `/api/external/images/${id}/download`,
} as const;
