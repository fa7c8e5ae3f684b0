import { Form, Input, Select, Switch } from 'antd';
import { useEffect } from 'react';
import type { components } from '../../../api/schema';
import { useT } from '../../../i18n/i18n';
import { formatUsd, usdToMicro } from '../../../lib/format';
import { ImageSource, isHttpUrl } from './ImageSource';
import { PriceAndSend } from './PriceAndSend';

export type PlaygroundModel = components['schemas']['ConsoleModelList']['data'][number];

export interface PlaygroundValues {
  model: string;
  img_url: string;
  prompt: string;
  audio: boolean;
}

/** What one call with `v` costs: the model's price with sound, or its silent price. */
export function priceOf(model: PlaygroundModel | undefined, audio: boolean): number | null {
  if (!model) return null;
  return !audio && model.silent_price_usd !== null ? model.silent_price_usd : model.price_usd;
}

/** A video model, an image (uploaded, or by its URL), a prompt and sound on or off; the price shown before sending. */
export function PlaygroundForm({
  models,
  onSubmit,
  pending,
  error,
  reuse,
}: {
  models: PlaygroundModel[];
  onSubmit: (v: PlaygroundValues) => void;
  pending: boolean;
  error: unknown;
  /**
   * an earlier upload to start from (`use`), or one deleted (`gone`), which the form lets go of if
   * it holds it; a new object each time
   */
  reuse?: { url: string; gone?: boolean } | null;
}) {
  const t = useT();
  const [form] = Form.useForm<PlaygroundValues>();
  useEffect(() => {
    if (!reuse) return;
    if (!reuse.gone) form.setFieldValue('img_url', reuse.url);
    else if (form.getFieldValue('img_url') === reuse.url) form.setFieldValue('img_url', undefined);
  }, [reuse, form]);
  const modelId = Form.useWatch('model', form);
  const audio = Form.useWatch('audio', form) ?? true;
  const model = models.find((m) => m.id === modelId);
  const price = priceOf(model, audio);
  return (
    <Form<PlaygroundValues>
      form={form}
      name="playground"
      layout="vertical"
      requiredMark={false}
      initialValues={{ model: models[0]?.id, audio: true, img_url: reuse?.gone ? undefined : reuse?.url }}
      onFinish={onSubmit}
    >
      <Form.Item label={t('playground.model')} name="model" rules={[{ required: true }]}>
        <Select
          showSearch
          options={models.map((m) => ({
            value: m.id,
            label: `${m.id} · ${m.duration_seconds ?? '?'} s · ${m.resolution ?? ''}`,
          }))}
        />
      </Form.Item>
      <Form.Item
        label={t('playground.image')}
        name="img_url"
        rules={[
          { required: true, message: t('playground.imageRequired') },
          {
            validator: async (_r, v: string | undefined) => {
              if (v && !isHttpUrl(v)) throw new Error(t('playground.imageUrlShape'));
            },
          },
        ]}
      >
        <ImageSource />
      </Form.Item>
      <Form.Item
        label={t('playground.prompt')}
        name="prompt"
        rules={[{ required: true, whitespace: true, message: t('playground.promptRequired') }, { max: 1500 }]}
      >
        <Input.TextArea rows={4} maxLength={1500} showCount />
      </Form.Item>
      {model?.silent_price_usd !== null && model?.silent_price_usd !== undefined ? (
        <Form.Item label={t('playground.audio')} name="audio" valuePropName="checked">
          <Switch />
        </Form.Item>
      ) : null}
      <PriceAndSend
        priceMicro={price === null ? null : usdToMicro(price)}
        hint={t('playground.priceHint')}
        pending={pending}
        error={error}
      />
    </Form>
  );
}
