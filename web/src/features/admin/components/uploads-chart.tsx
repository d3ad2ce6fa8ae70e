import Box from '@mui/material/Box';
import { useTheme } from '@mui/material/styles';
import { useLayoutEffect, useRef } from 'react';
import { formatCalendarDate } from '../../../lib/calendar-date';
import { visuallyHidden } from '../../../components/ui/visually-hidden';

type Day = { date: string; count: number };

const HEIGHT = 180;
const LABEL_BAND = 34;
const TOP_PAD = 20;

/** Gridline steps that read well: 1, 2, 5, 10, 20, 50 … */
function niceMax(max: number): number {
  if (max <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((s) => s * magnitude * 4 >= max) ?? 10;
  return step * magnitude * 4;
}

/**
 * Uploads per day as a plain SVG bar chart (no chart library in the bundle). The SVG is a picture
 * for sighted users; screen readers get the same numbers as a table.
 */
export function UploadsChart({ days, locale, captionId }: { days: Day[]; locale: string; captionId: string }) {
  const theme = useTheme();
  const scroller = useRef<HTMLDivElement>(null);
  // Where the chart is wider than the screen, it shows its newest days (today's is the one an
  // administrator looks for), also after the screen turns, unless the user has scrolled back to
  // older ones; those are a sideways scroll away.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let atNewest = true;
    const toNewest = () => {
      if (atNewest) el.scrollLeft = el.scrollWidth;
    };
    const onScroll = () => {
      atNewest = el.scrollLeft + el.clientWidth >= el.scrollWidth - 2;
    };
    toNewest();
    el.addEventListener('scroll', onScroll, { passive: true });
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(toNewest);
    observer?.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      observer?.disconnect();
    };
  }, [days.length]);
  const max = niceMax(Math.max(0, ...days.map((d) => d.count)));
  const slot = 40;
  const width = Math.max(days.length, 1) * slot;
  const plot = HEIGHT - LABEL_BAND - TOP_PAD;
  const short = (date: string) => formatCalendarDate(date, locale, { day: 'numeric', month: 'short' }) ?? date;
  const long = (date: string) =>
    formatCalendarDate(date, locale, { weekday: 'short', day: 'numeric', month: 'long', year: 'numeric' }) ?? date;
  const ticks = [0, max / 2, max];

  return (
    <>
      {/* Narrow screens scroll the chart sideways; the scroller takes focus so keyboards can too. */}
      <Box
        ref={scroller}
        tabIndex={0}
        role="group"
        aria-label="Uploads per day chart"
        sx={{ overflowX: 'auto', borderRadius: 1, '&:focus-visible': { outline: 2, outlineColor: 'primary.main' } }}
      >
        <Box
          component="svg"
          viewBox={`-28 0 ${width + 28} ${HEIGHT}`}
          aria-hidden
          focusable="false"
          sx={{ display: 'block', width: '100%', minWidth: 480, height: 'auto' }}
        >
          {ticks.map((tick) => {
            const y = TOP_PAD + plot - (tick / max) * plot;
            return (
              <g key={tick}>
                <line x1={0} x2={width} y1={y} y2={y} stroke={theme.palette.divider} strokeWidth={1} />
                <text x={-6} y={y + 4} textAnchor="end" fontSize={11} fill={theme.palette.text.secondary}>
                  {tick}
                </text>
              </g>
            );
          })}
          {days.map((day, i) => {
            const h = (day.count / max) * plot;
            const x = i * slot + 8;
            const y = TOP_PAD + plot - h;
            return (
              <g key={day.date}>
                <title>{`${long(day.date)}: ${day.count}`}</title>
                <rect x={x} y={y} width={slot - 16} height={Math.max(h, 0)} rx={4} fill={theme.palette.primary.main} />
                {day.count > 0 && (
                  <text
                    x={x + (slot - 16) / 2}
                    y={y - 5}
                    textAnchor="middle"
                    fontSize={11}
                    fill={theme.palette.text.primary}
                  >
                    {day.count}
                  </text>
                )}
                <text
                  x={x + (slot - 16) / 2}
                  y={HEIGHT - LABEL_BAND + 16}
                  textAnchor="middle"
                  fontSize={10}
                  fill={theme.palette.text.secondary}
                >
                  {short(day.date)}
                </text>
              </g>
            );
          })}
        </Box>
      </Box>
      <Box component="table" aria-labelledby={captionId} sx={visuallyHidden}>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Uploads</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <th scope="row">{long(day.date)}</th>
              <td>{day.count}</td>
            </tr>
          ))}
        </tbody>
      </Box>
    </>
  );
}
