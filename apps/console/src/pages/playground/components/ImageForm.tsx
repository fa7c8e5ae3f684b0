import { UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Form, Image, Input, InputNumber, Select, Space, Typography, Upload } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useT } from '../../../i18n/i18n';
import { formatMicroUsd, usdToMicro } from '../../../lib/format';
import { fileProblem, IMAGE_TYPES } from './ImageSource';
import type { PlaygroundModel } from './PlaygroundForm';
import { PriceAndSend } from './PriceAndSend';

export interface ImageValues {
  model: string;
  prompt: string;
  n: number;
  /** undefined: the model's default size */
  size?: string;
  /** the image to edit; none: an image from the prompt alone */
  file?: File;
}

/** What `n` images of the model cost, in micro-USD (the API charges per image delivered, and refunds the rest). */
export const imagesPrice = (model: PlaygroundModel | undefined, n: number): number | null =>
  model ? usdToMicro(model.price_usd) * n : null;

/** A picked file's preview URL, revoked when it changes or the form goes. */
function usePreview(file: File | undefined): string | null {
  const url = useMemo(() => (file ? URL.createObjectURL(file) : null), [file]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return url;
}

/**
 * An image model, a prompt, an image to edit where the model takes one (required where it needs
 * one), the size and n where the model takes them; the price (n × the price of one image) shown
 * before sending.
 */
export function ImageForm({
  models,
  onSubmit,
  pending,
  error,
}: {
  models: PlaygroundModel[];
  onSubmit: (v: ImageValues) => void;
  pending: boolean;
  error: unknown;
}) {
  const t = useT();
  const [form] = Form.useForm<Omit<ImageValues, 'file'>>();
  const [file, setFile] = useState<File | undefined>();
  const [problem, setProblem] = useState<string | null>(null);
  const modelId = Form.useWatch('model', form);
  const n = Form.useWatch('n', form) ?? 1;
  const model = models.find((m) => m.id === modelId);
  const takesImage = (model?.max_input_images ?? 0) > 0;
  const needsImage = model?.needs_image ?? false;
  const price = imagesPrice(model, n);
  const preview = usePreview(takesImage ? file : undefined);
  const missingImage = needsImage && !file;
  // a size or n the next model does not take is dropped, not sent
  useEffect(() => {
    if (!model) return;
    const size = form.getFieldValue('size') as string | undefined;
    if (size && !model.sizes.includes(size)) form.setFieldValue('size', undefined);
    if (((form.getFieldValue('n') as number | undefined) ?? 1) > model.max_n) form.setFieldValue('n', 1);
  }, [model, form]);
  return (
    <Form<Omit<ImageValues, 'file'>>
      form={form}
      name="playground-image"
      layout="vertical"
      requiredMark={false}
      initialValues={{ model: models[0]?.id, n: 1 }}
      onFinish={(v) => {
        if (missingImage) return setProblem(t('playground.editImageRequired'));
        onSubmit({ ...v, prompt: v.prompt.trim(), file: takesImage ? file : undefined });
      }}
    >
      <Form.Item label={t('playground.model')} name="model" rules={[{ required: true }]}>
        <Select
          showSearch
          options={models.map((m) => ({
            value: m.id,
            label: `${m.id} · ${t('playground.perImage', { price: formatMicroUsd(usdToMicro(m.price_usd)) })}`,
          }))}
        />
      </Form.Item>
      {takesImage ? (
        <Form.Item
          label={needsImage ? t('playground.editImage') : t('playground.editImageOptional')}
          extra={t('playground.uploadHint')}
        >
          <Space orientation="vertical" style={{ width: '100%' }}>
            <Space wrap>
              <Upload
                accept={IMAGE_TYPES.join(',')}
                maxCount={1}
                showUploadList={false}
                beforeUpload={(f) => {
                  const wrong = fileProblem(f, t);
                  setProblem(wrong);
                  setFile(wrong ? undefined : f);
                  return false;
                }}
              >
                <Button icon={<UploadOutlined />}>
                  {file ? t('playground.chooseAnother') : t('playground.chooseFile')}
                </Button>
              </Upload>
              {file && !needsImage ? (
                <Button type="link" onClick={() => setFile(undefined)}>
                  {t('playground.removeImage')}
                </Button>
              ) : null}
            </Space>
            {file ? (
              <Typography.Text data-testid="playground-edit-file">
                {t('playground.picked', { name: file.name })}
              </Typography.Text>
            ) : null}
            {preview ? (
              <Image
                src={preview}
                alt={t('playground.inputImage')}
                height={120}
                style={{ objectFit: 'contain' }}
              />
            ) : null}
            {problem ? <Alert type="error" showIcon role="alert" title={problem} /> : null}
          </Space>
        </Form.Item>
      ) : null}
      <Form.Item
        label={t('playground.prompt')}
        name="prompt"
        rules={[
          { required: true, whitespace: true, message: t('playground.imagePromptRequired') },
          { max: 4000 },
        ]}
      >
        <Input.TextArea rows={4} maxLength={4000} showCount />
      </Form.Item>
      <Space wrap size="large" align="start">
        {model && model.sizes.length > 0 ? (
          <Form.Item label={t('playground.size')} name="size" style={{ minWidth: 180 }}>
            <Select
              allowClear
              placeholder={t('playground.sizeDefault')}
              options={model.sizes.map((s) => ({ value: s, label: s }))}
            />
          </Form.Item>
        ) : null}
        {model && model.max_n > 1 ? (
          <Form.Item
            label={t('playground.count')}
            name="n"
            rules={[{ type: 'integer', min: 1, max: model.max_n }]}
          >
            <InputNumber min={1} max={model.max_n} precision={0} />
          </Form.Item>
        ) : null}
      </Space>
      <PriceAndSend
        priceMicro={price}
        hint={
          n > 1
            ? t('playground.imagesPriceHint', {
                n,
                unit: formatMicroUsd(usdToMicro(model?.price_usd ?? 0)),
              })
            : t('playground.imagePriceHint')
        }
        pending={pending}
        error={error}
      />
    </Form>
  );
}
