// The module's public face: what the apps and the other modules call. Anything else is internal.
export { ChannelPool, shouldFailOver } from './channel-pool';
export type { BreakerOptions, ChannelStatus } from './channel-pool';
export { channelsFromEnv, upstreamEnvSchema } from './channels-config';
export type { ChannelConfig } from './channels-config';
export { DashScopeVideoClient } from './dashscope-video';
export type {
  UpstreamTaskListPage,
  UpstreamTaskListQuery,
  UpstreamVideoState,
  UpstreamVideoStatus,
  VideoSubmission,
} from './dashscope-video';
export type { UpstreamChannel, Vendor } from './vendor-http';
