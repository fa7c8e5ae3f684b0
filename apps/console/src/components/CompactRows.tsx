import { Grid } from 'antd';
import type { CSSProperties, ReactNode } from 'react';

/**
 * Whether lists show each row as one cell beside its actions: a phone's width (below `md`), where a
 * table of columns would scroll sideways.
 */
export const useCompactRows = () => Grid.useBreakpoint().md === false;

const VISUALLY_HIDDEN: CSSProperties = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
};

/** Read by screen readers, not shown: the column headers a one-cell row leaves out. */
export const ScreenReaderOnly = ({ children }: { children: ReactNode }) => (
  <span style={VISUALLY_HIDDEN}>{children}</span>
);
