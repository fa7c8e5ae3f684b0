/**
 * The image-to-video models. Public ids follow `<family>-i2v-flash-<duration>s-<resolution>`;
 * each maps to one upstream DashScope model with the duration and resolution fixed by the id.
 */
export type VideoResolution = '720P' | '1080P';

export interface VideoFamily {
  family: string;
  upstreamModel: string;
  durations: readonly number[];
  resolutions: readonly VideoResolution[];
  /** whether `parameters.audio` may be set to false (silent video) */
  audioOptional: boolean;
  /** Unix seconds: release of the upstream model (GET /v1/models `created`) */
  created: number;
  /** list price per second of video, micro-USD, by resolution: [with sound, silent] */
  pricePerSecondMicroUsd: Record<VideoResolution, { withAudio: number; silent: number }>;
}

export const VIDEO_FAMILIES: readonly VideoFamily[] = [
  {
    family: 'wan2.6',
    upstreamModel: 'wan2.6-i2v-flash',
    durations: [5, 10, 15],
    resolutions: ['720P', '1080P'],
    audioOptional: true,
    created: 1_765_843_200,
    pricePerSecondMicroUsd: {
      '720P': { withAudio: 50_000, silent: 25_000 },
      '1080P': { withAudio: 75_000, silent: 37_500 },
    },
  },
  {
    family: 'wan2.5',
    upstreamModel: 'wan2.5-i2v-preview',
    durations: [5, 10],
    resolutions: ['720P', '1080P'],
    audioOptional: false,
    created: 1_758_672_000,
    pricePerSecondMicroUsd: {
      '720P': { withAudio: 100_000, silent: 100_000 },
      '1080P': { withAudio: 150_000, silent: 150_000 },
    },
  },
];

export interface VideoModel {
  id: string;
  kind: 'video';
  family: string;
  vendor: 'dashscope';
  upstreamModel: string;
  durationSeconds: number;
  resolution: VideoResolution;
  audioOptional: boolean;
  created: number;
  pricePerSecondMicroUsd: { withAudio: number; silent: number };
}

export function videoModelId(family: string, duration: number, resolution: VideoResolution): string {
  return `${family}-i2v-flash-${duration}s-${resolution.toLowerCase()}`;
}

/** Every public video model id expanded from the family table. */
export function buildVideoModels(families: readonly VideoFamily[] = VIDEO_FAMILIES): VideoModel[] {
  return families.flatMap((f) =>
    f.durations.flatMap((duration) =>
      f.resolutions.map(
        (resolution): VideoModel => ({
          id: videoModelId(f.family, duration, resolution),
          kind: 'video',
          family: f.family,
          vendor: 'dashscope',
          upstreamModel: f.upstreamModel,
          durationSeconds: duration,
          resolution,
          audioOptional: f.audioOptional,
          created: f.created,
          pricePerSecondMicroUsd: f.pricePerSecondMicroUsd[resolution],
        }),
      ),
    ),
  );
}

/** Price of one video task in micro-USD: per-second price times the duration fixed by the model. */
export function videoTaskPrice(model: VideoModel, audio: boolean): number {
  const perSecond = audio ? model.pricePerSecondMicroUsd.withAudio : model.pricePerSecondMicroUsd.silent;
  return perSecond * model.durationSeconds;
}
