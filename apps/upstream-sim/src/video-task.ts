// A simulated vendor task as the simulator keeps and journals it.
export type VideoOutcome = 'SUCCEEDED' | 'FAILED' | 'CANCELED';
export type VideoStatus = 'PENDING' | 'RUNNING' | VideoOutcome;

/** One simulated DashScope video task. Its status is a function of the clock (see `videoStatusAt`). */
export interface VideoTask {
  id: string;
  apiKey: string;
  model: string;
  prompt?: string;
  resolution: '720P' | '1080P';
  duration: number;
  audio: boolean;
  /** everything else the client sent in `parameters`, kept for inspection through the control API */
  parameters: Record<string, unknown>;
  submittedAt: number;
  /** when it leaves PENDING (equals `endsAt` for a task that never runs) */
  scheduledAt: number;
  /** when it reaches `outcome` */
  endsAt: number;
  outcome: VideoOutcome;
  code?: string;
  message?: string;
  /** still counted against its key's running-task quota */
  counted: boolean;
  /** when a task query first answered it ended (how soon the client learnt of its end) */
  endAnsweredAt?: number;
}
