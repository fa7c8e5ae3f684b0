import { IMAGE_MODELS, type ImageModel } from './image-models';
import { buildVideoModels, type VideoModel } from './video-models';

export type CatalogModel = VideoModel | ImageModel;

/** The models a deployment offers, looked up by public id. The one place model facts come from. */
export class ModelCatalog {
  private readonly byId: Map<string, CatalogModel>;
  constructor(readonly models: readonly CatalogModel[]) {
    this.byId = new Map(models.map((m) => [m.id, m]));
    if (this.byId.size !== models.length) throw new Error('model ids in a catalog must be unique');
  }
  get(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }
  video(id: string): VideoModel | undefined {
    const m = this.byId.get(id);
    return m?.kind === 'video' ? m : undefined;
  }
  image(id: string): ImageModel | undefined {
    const m = this.byId.get(id);
    return m?.kind === 'image' ? m : undefined;
  }
  /** The image models, in catalog order. */
  images(): ImageModel[] {
    return this.models.filter((m): m is ImageModel => m.kind === 'image');
  }
}

/** The built-in models with their list prices (spec/upstreams.md section D). */
export function defaultModels(): CatalogModel[] {
  return [...IMAGE_MODELS, ...buildVideoModels()];
}

/** The built-in catalog, without a deployment's changes (see loadCatalog). */
export function defaultCatalog(): ModelCatalog {
  return new ModelCatalog(defaultModels());
}
