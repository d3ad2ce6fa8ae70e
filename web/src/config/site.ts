/**
 * Static texts of the public pages. A hospital that self-hosts MedShare edits this one file to
 * show its own contact details; nothing here is fetched, so the landing page renders offline.
 */
export const site = {
  name: 'MedShare',
  tagline: 'Secure Medical Image Sharing',
  contact: {
    email: 'support@medshare.example',
    phone: '+1 (555) 010-0199',
    address: '100 Health Sciences Way, Suite 400, Springfield',
    hours: 'Support desk: Monday to Friday, 8:00–18:00',
  },
  credits: 'Designed and developed by the MedShare open-source team.',
} as const;
