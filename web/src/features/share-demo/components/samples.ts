export type Sample = { id: string; title: string; description: string; file: string };

/** Drawn illustrations shipped in web/public/samples: the demo never shows patient data. */
export const samples: Sample[] = [
  {
    id: 'chest-xray',
    title: 'Chest X-ray',
    description: 'Posteroanterior chest radiograph, the most requested study in primary care.',
    file: '/samples/chest-xray.svg',
  },
  {
    id: 'brain-mri',
    title: 'Brain MRI',
    description: 'Axial T2-weighted slice, as a neurologist would share it with a colleague.',
    file: '/samples/brain-mri.svg',
  },
  {
    id: 'hand-xray',
    title: 'Hand X-ray',
    description: 'Frontal hand radiograph, typical of a fracture-clinic follow-up.',
    file: '/samples/hand-xray.svg',
  },
  {
    id: 'ultrasound',
    title: 'Abdominal ultrasound',
    description: 'B-mode frame with a caliper measurement, as sent for a second opinion.',
    file: '/samples/ultrasound.svg',
  },
];

export function shareLinks(url: string, title: string) {
  const text = `${title} (sample image) shared from MedShare`;
  return {
    facebook: `https://www.facebook.com/sharer/sharer.php?u=${encodeURIComponent(url)}`,
    x: `https://twitter.com/intent/tweet?url=${encodeURIComponent(url)}&text=${encodeURIComponent(text)}`,
    email: `mailto:?subject=${encodeURIComponent(text)}&body=${encodeURIComponent(`Have a look at this sample image: ${url}`)}`,
  };
}
