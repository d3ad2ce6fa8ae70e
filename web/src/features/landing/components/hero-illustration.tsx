/**
 * Decorative product mock-up for the hero: a study in the viewer, its lock and share state.
 * Drawn in SVG so it ships with the bundle (no image requests, nothing for the CSP to refuse).
 */
export function HeroIllustration() {
  const ribs = [0, 1, 2, 3, 4, 5];
  return (
    <svg
      viewBox="-10 0 550 470"
      role="img"
      aria-label="A chest X-ray illustration in the MedShare viewer, encrypted and shared"
      width="100%"
    >
      <defs>
        <linearGradient id="hero-film" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stopColor="#0d1b2a" />
          <stop offset="1" stopColor="#1b2f45" />
        </linearGradient>
        <radialGradient id="hero-lung" cx="0.5" cy="0.45" r="0.6">
          <stop offset="0" stopColor="#3c5877" />
          <stop offset="1" stopColor="#14263b" />
        </radialGradient>
        <filter id="hero-shadow" filterUnits="userSpaceOnUse" x="-10" y="0" width="550" height="470">
          <feDropShadow dx="0" dy="18" stdDeviation="18" floodColor="#06284c" floodOpacity="0.28" />
        </filter>
      </defs>

      <g filter="url(#hero-shadow)">
        <rect x="40" y="30" width="400" height="340" rx="18" fill="#ffffff" />
      </g>
      <rect x="40" y="30" width="400" height="46" rx="18" fill="#f1f5fa" />
      <rect x="40" y="58" width="400" height="18" fill="#f1f5fa" />
      <circle cx="66" cy="53" r="6" fill="#f26b6b" />
      <circle cx="86" cy="53" r="6" fill="#f5c04f" />
      <circle cx="106" cy="53" r="6" fill="#4fc08d" />
      <text x="130" y="58" fontSize="14" fontFamily="system-ui, sans-serif" fill="#4a5d72">
        chest-pa.dcm · AES-256-GCM
      </text>

      <rect x="58" y="90" width="240" height="262" rx="10" fill="url(#hero-film)" />
      <ellipse cx="140" cy="215" rx="52" ry="92" fill="url(#hero-lung)" opacity="0.95" />
      <ellipse cx="218" cy="215" rx="52" ry="92" fill="url(#hero-lung)" opacity="0.95" />
      <rect x="172" y="110" width="14" height="220" rx="7" fill="#b9c8d8" opacity="0.75" />
      {ribs.map((i) => (
        <g key={i} stroke="#c8d6e4" strokeWidth="5" fill="none" opacity={0.55 - i * 0.04} strokeLinecap="round">
          <path d={`M176 ${140 + i * 30} C 140 ${128 + i * 30}, 104 ${142 + i * 30}, 92 ${170 + i * 30}`} />
          <path d={`M182 ${140 + i * 30} C 218 ${128 + i * 30}, 254 ${142 + i * 30}, 266 ${170 + i * 30}`} />
        </g>
      ))}
      <path
        d="M120 112 Q 179 92 238 112"
        stroke="#d8e3ee"
        strokeWidth="6"
        fill="none"
        opacity="0.6"
        strokeLinecap="round"
      />

      <g fontFamily="system-ui, sans-serif">
        <text x="316" y="110" fontSize="12" fill="#6b7f95" fontWeight="600">
          STUDY
        </text>
        <text x="316" y="130" fontSize="15" fill="#0f2740" fontWeight="700">
          Chest PA
        </text>
        <text x="316" y="160" fontSize="12" fill="#6b7f95" fontWeight="600">
          MODALITY
        </text>
        <text x="316" y="180" fontSize="15" fill="#0f2740" fontWeight="700">
          CR · 1 frame
        </text>
        <text x="316" y="210" fontSize="12" fill="#6b7f95" fontWeight="600">
          ACCESS
        </text>
        <rect x="316" y="220" width="104" height="26" rx="13" fill="#e3f4ef" />
        <text x="330" y="238" fontSize="12" fill="#0e8a7e" fontWeight="700">
          ✓ Verified
        </text>
        <rect x="316" y="254" width="104" height="26" rx="13" fill="#e8f1fb" />
        <text x="330" y="272" fontSize="12" fill="#0b5cad" fontWeight="700">
          Audited
        </text>
      </g>

      <g filter="url(#hero-shadow)">
        <rect x="224" y="318" width="284" height="74" rx="14" fill="#ffffff" />
      </g>
      <circle cx="260" cy="355" r="20" fill="#0b5cad" />
      <text
        x="260"
        y="361"
        textAnchor="middle"
        fontSize="15"
        fill="#fff"
        fontWeight="700"
        fontFamily="system-ui, sans-serif"
      >
        DR
      </text>
      <g fontFamily="system-ui, sans-serif">
        <text x="292" y="349" fontSize="14" fill="#0f2740" fontWeight="700">
          Shared with Dr. Rivera
        </text>
        <text x="292" y="370" fontSize="12" fill="#4a5d72">
          Code required · expires in 24 h
        </text>
      </g>

      <g filter="url(#hero-shadow)">
        <circle cx="440" cy="70" r="34" fill="#0e8a7e" />
      </g>
      <rect x="426" y="66" width="28" height="22" rx="4" fill="#ffffff" />
      <path d="M431 66 v-7 a9 9 0 0 1 18 0 v7" stroke="#ffffff" strokeWidth="4" fill="none" />
      <circle cx="440" cy="77" r="3.5" fill="#0e8a7e" />
    </svg>
  );
}
