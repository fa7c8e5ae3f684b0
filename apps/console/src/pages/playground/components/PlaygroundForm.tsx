import { Alert, Button, Form, Image, Input, Select, Switch, Typography } from 'antd';
import type { components } from '../../../api/schema';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';
import { formatUsdExact } from '../../../lib/format';

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

const isHttpUrl = (s: string | undefined) => {
  try {
    const u = new URL(s ?? '');
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

/** A model, an image (by its URL), a prompt and sound on or off; the price shown before sending. */
export function PlaygroundForm({
  models,
  onSubmit,
  pending,
  error,
}: {
  models: PlaygroundModel[];
  onSubmit: (v: PlaygroundValues) => void;
  pending: boolean;
  error: unknown;
}) {
  const t = useT();
  const [form] = Form.useForm<PlaygroundValues>();
  const modelId = Form.useWatch('model', form);
  const audio = Form.useWatch('audio', form) ?? true;
  const imgUrl = Form.useWatch('img_url', form);
  const model = models.find((m) => m.id === modelId);
  const price = priceOf(model, audio);
  return (
    <Form<PlaygroundValues>
      form={form}
      name="playground"
      layout="vertical"
      requiredMark={false}
      initialValues={{ model: models[0]?.id, audio: true }}
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
        label={t('playground.imageUrl')}
        name="img_url"
        extra={t('playground.imageUrlHint')}
        rules={[
          { required: true, message: t('playground.imageRequired') },
          {
            validator: async (_r, v: string | undefined) => {
              if (v && !isHttpUrl(v.trim())) throw new Error(t('playground.imageUrlShape'));
            },
          },
        ]}
        normalize={(v: string | undefined) => v?.trim()}
      >
        <Input placeholder="https://…" inputMode="url" />
      </Form.Item>
      {isHttpUrl(imgUrl) ? (
        <div style={{ marginBottom: 16 }}>
          <Image
            src={imgUrl}
            alt={t('playground.inputImage')}
            height={120}
            style={{ objectFit: 'contain' }}
            fallback="data:image/gif;base64,R0lGODlhAQABAAAAACw="
          />
        </div>
      ) : null}
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
      {price !== null ? (
        <Alert
          type="info"
          showIcon
          role="status"
          style={{ marginBottom: 16 }}
          title={t('playground.price', { price: formatUsdExact(price) })}
          description={t('playground.priceHint')}
        />
      ) : null}
      {error ? <ErrorAlert error={error} style={{ marginBottom: 16 }} /> : null}
      <Button type="primary" htmlType="submit" loading={pending} disabled={price === null}>
        {price === null ? t('playground.send') : t('playground.sendFor', { price: formatUsdExact(price) })}
      </Button>
      <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
        {t('playground.keyNote')}
      </Typography.Paragraph>
    </Form>
  );
}
