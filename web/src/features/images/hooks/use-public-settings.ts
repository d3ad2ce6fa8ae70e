import type { PublicSettings } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { DEFAULT_PUBLIC_SETTINGS, getPublicSettings } from '../api/public-settings';

/** The server's display and upload settings; the DESIGN §12 defaults until they arrive. */
export function usePublicSettings(): PublicSettings {
  const [settings, setSettings] = useState<PublicSettings>(DEFAULT_PUBLIC_SETTINGS);
  useEffect(() => {
    let live = true;
    void getPublicSettings().then((value) => {
      if (live) setSettings(value);
    });
    return () => {
      live = false;
    };
  }, []);
  return settings;
}
