import { useCallback, useMemo, useRef, type Dispatch, type SetStateAction } from 'react';

type CineState = {
  playing: boolean;
  setPlaying: Dispatch<SetStateAction<boolean>>;
  /** The frame (or slice) on screen. */
  shown: number;
  goTo: (index: number) => void;
};

/**
 * The cine's Play/Pause toggle and the frame slider's handlers, shared by the single-image and stack
 * viewers; each viewer keeps its play state and runs its own tick.
 *
 * Stopping lands on the frame on screen: the tick's next frame may still be loading and would
 * otherwise appear after the stop. Asking for the shown frame again makes it the viewer's target,
 * and Cornerstone drops a load that is no longer its target.
 */
export function useCineControls({ playing, setPlaying, shown, goTo }: CineState) {
  const playingRef = useRef(playing);
  playingRef.current = playing;
  const shownRef = useRef(shown);
  shownRef.current = shown;
  // Whether the slider's current use has changed its value (reset at each commit).
  const sliderMovedRef = useRef(false);

  const togglePlaying = useCallback(() => {
    if (playingRef.current) goTo(shownRef.current);
    // A drag that ended without a commit (a cancelled touch) must not count against the next use.
    else sliderMovedRef.current = false;
    setPlaying((p) => !p);
  }, [goTo, setPlaying]);

  const sliderHandlers = useMemo(
    () => ({
      onChange: (_event: Event, value: number | number[]) => {
        sliderMovedRef.current = true;
        setPlaying(false);
        goTo(value as number);
      },
      // A move that lands on the frame already shown (End at the last frame) changes no value, so
      // MUI sends no onChange; it still commits, and any use of the slider ends the cine. Its value
      // is not used: for a commit without a change MUI passes the last value the slider reported,
      // however old.
      onChangeCommitted: () => {
        if (!sliderMovedRef.current && playingRef.current) goTo(shownRef.current);
        sliderMovedRef.current = false;
        setPlaying(false);
      },
    }),
    [goTo, setPlaying],
  );

  return { togglePlaying, sliderHandlers };
}
