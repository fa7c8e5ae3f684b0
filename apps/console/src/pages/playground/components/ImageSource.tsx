import { UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Image, Input, Segmented, Space, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { $api, keyOf } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useT } from '../../../i18n/i18n';

/** The image types the API takes, by their MIME types (checked again by their bytes there). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
/** The largest image the playground uploads (the API's own limit, PLAYGROUND_UPLOAD_MAX_BYTES by default). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export const isHttpUrl = (s: string | undefined) => {
  try {
    const u = new URL(s ?? '');
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

/** What is wrong with a file picked for upload (type or size), in the reader's words, or null. */
export function fileProblem(file: { type: string; size: number }, t: ReturnType<typeof useT>): string | null {
  if (!IMAGE_TYPES.includes(file.type)) return t('playground.fileType');
  if (file.size > MAX_IMAGE_BYTES) return t('playground.fileSize', { mb: MAX_IMAGE_BYTES / 1024 / 1024 });
  return null;
}

/**
 * A video's input image as a form control whose value is the image's URL: either a link typed in, or
 * a file uploaded (POST /console/api/playground/uploads) whose URL the API serves for the vendor to fetch.
 */
export function ImageSource({
  value,
  onChange,
}: {
  value?: string;
  onChange?: (url: string | undefined) => void;
}) {
  const t = useT();
  const [mode, setMode] = useState<'upload' | 'url'>('upload');
  const [uploadedName, setUploadedName] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const client = useQueryClient();
  const upload = $api.useMutation('post', '/console/api/playground/uploads', {
    onSuccess: () => void client.invalidateQueries({ queryKey: keyOf('/console/api/playground/uploads') }),
  });
  const send = (file: File) => {
    setProblem(fileProblem(file, t));
    if (fileProblem(file, t)) return;
    onChange?.(undefined);
    upload.mutate(
      {
        body: { file: file.name },
        bodySerializer: () => {
          const form = new FormData();
          form.append('file', file, file.name);
          return form;
        },
      },
      {
        onSuccess: (up) => {
          setUploadedName(file.name);
          onChange?.(up.url);
        },
      },
    );
  };
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Segmented<'upload' | 'url'>
        value={mode}
        onChange={(m) => {
          setMode(m);
          setProblem(null);
          setUploadedName(null);
          upload.reset();
          onChange?.(undefined);
        }}
        options={[
          { value: 'upload', label: t('playground.sourceUpload') },
          { value: 'url', label: t('playground.sourceUrl') },
        ]}
      />
      {mode === 'upload' ? (
        <>
          <Upload
            accept={IMAGE_TYPES.join(',')}
            maxCount={1}
            showUploadList={false}
            beforeUpload={(file) => {
              send(file);
              return false;
            }}
          >
            <Button icon={<UploadOutlined />} loading={upload.isPending}>
              {uploadedName ? t('playground.chooseAnother') : t('playground.chooseFile')}
            </Button>
          </Upload>
          <Typography.Text type="secondary">{t('playground.uploadHint')}</Typography.Text>
          {uploadedName && value ? (
            <Typography.Text data-testid="playground-uploaded">
              {t('playground.uploaded', { name: uploadedName })}
            </Typography.Text>
          ) : null}
          {!uploadedName && value ? (
            <Typography.Text data-testid="playground-uploaded">
              {t('playground.uploads.using')}
            </Typography.Text>
          ) : null}
          {problem ? <Alert type="error" showIcon role="alert" title={problem} /> : null}
          {upload.error ? <ErrorAlert error={upload.error} /> : null}
        </>
      ) : (
        <>
          <Input
            aria-label={t('playground.imageUrl')}
            placeholder="https://…"
            inputMode="url"
            value={value ?? ''}
            onChange={(e) => onChange?.(e.target.value.trim() || undefined)}
          />
          <Typography.Text type="secondary">{t('playground.imageUrlHint')}</Typography.Text>
        </>
      )}
      {isHttpUrl(value) ? (
        <Image
          src={value}
          alt={t('playground.inputImage')}
          height={120}
          style={{ objectFit: 'contain' }}
          fallback="data:image/gif;base64,R0lGODlhAQABAAAAACw="
        />
      ) : null}
    </Space>
  );
}
