import { useQueryClient } from '@tanstack/react-query';
import { Card, Col, Empty, Row, Segmented, Space, Typography } from 'antd';
import { useRef, useState } from 'react';
import { $api, keyOf } from '../../api/client';
import { CodeSnippets } from '../../components/CodeSnippets';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import type { SnippetCall } from '../../lib/snippets';
import type { components } from '../../api/schema';
import { ImageForm, type ImageValues } from './components/ImageForm';
import { ImageResult } from './components/ImageResult';
import { LiveTask } from './components/LiveTask';
import { PlaygroundForm, type PlaygroundValues } from './components/PlaygroundForm';
import { UploadList } from './components/UploadList';
import { PageTitle } from '../../components/PageTitle';

type Kind = 'video' | 'image';

/**
 * Try a model without code: a video from an image (uploaded or by URL) and a prompt, or images from
 * a prompt (and an image to edit); the price before sending, the task live until it plays or the
 * images shown, and the same request as code to copy. The calls go to the console's own routes on
 * the session (no key in the page), billed and limited as the account's playground key.
 */
export function PlaygroundPage() {
  const t = useT();
  const client = useQueryClient();
  const [kind, setKind] = useState<Kind>('video');
  const models = $api.useQuery('get', '/console/api/models', undefined, { select: (r) => r.data });
  const info = $api.useQuery('get', '/console/api/quickstart');
  const [taskId, setTaskId] = useState<string | null>(null);
  const [images, setImages] = useState<components['schemas']['PlaygroundImagesResponse'] | null>(null);
  const [sent, setSent] = useState<SnippetCall | null>(null);
  const [reuse, setReuse] = useState<{ url: string; gone?: boolean } | null>(null);
  const requestCard = useRef<HTMLDivElement>(null);
  const reuseUpload = (url: string) => {
    setReuse({ url });
    requestCard.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
  };
  const spent = () => {
    for (const path of ['/console/api/balance', '/console/api/me', '/console/api/videos'] as const)
      void client.invalidateQueries({ queryKey: keyOf(path) });
  };
  const create = $api.useMutation('post', '/console/api/playground/videos', {
    onSuccess: (task) => {
      setTaskId(task.id);
      spent();
    },
  });
  const generate = $api.useMutation('post', '/console/api/playground/images/generations', {
    onSuccess: (r) => {
      setImages(r);
      spent();
    },
  });
  const edit = $api.useMutation('post', '/console/api/playground/images/edits', {
    onSuccess: (r) => {
      setImages(r);
      spent();
    },
  });
  const submit = (v: PlaygroundValues) => {
    const model = models.data?.find((m) => m.id === v.model);
    const silent = !v.audio && model?.silent_price_usd !== null;
    setSent({ kind: 'video', model: v.model, prompt: v.prompt.trim(), imageUrl: v.img_url });
    create.mutate({
      body: {
        model: v.model,
        prompt: v.prompt.trim(),
        metadata: { input: { img_url: v.img_url }, ...(silent ? { parameters: { audio: false } } : {}) },
      },
    });
  };
  const submitImage = (v: ImageValues) => {
    const options = { ...(v.n !== 1 ? { n: v.n } : {}), ...(v.size ? { size: v.size } : {}) };
    setImages(null);
    generate.reset();
    edit.reset();
    const file = v.file;
    if (!file) {
      setSent({ kind: 'image', model: v.model, prompt: v.prompt, ...options });
      generate.mutate({ body: { model: v.model, prompt: v.prompt, ...options } });
      return;
    }
    setSent({ kind: 'image-edit', model: v.model, prompt: v.prompt, ...options, fileName: file.name });
    // the multipart form of POST /v1/images/edits, with the file itself
    edit.mutate({
      body: { model: v.model, prompt: v.prompt, image: [file.name], ...options },
      bodySerializer: (b) => {
        const form = new FormData();
        form.append('model', b.model ?? v.model);
        form.append('prompt', b.prompt);
        if (b.n !== undefined) form.append('n', String(b.n));
        if (b.size !== undefined) form.append('size', b.size);
        form.append('image', file, file.name);
        return form;
      },
    });
  };
  const ofKind = models.data?.filter((m) => m.type === kind);
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.playground')}</PageTitle>
      <Typography.Paragraph style={{ margin: 0 }}>{t('playground.intro')}</Typography.Paragraph>
      {models.error ? <ErrorAlert error={models.error} onRetry={() => void models.refetch()} /> : null}
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <Card ref={requestCard} title={t('playground.request')} loading={models.isPending}>
            <Segmented<Kind>
              block
              value={kind}
              onChange={(k) => {
                setKind(k);
                setSent(null);
              }}
              options={[
                { value: 'video', label: t('playground.kindVideo') },
                { value: 'image', label: t('playground.kindImage') },
              ]}
              style={{ marginBottom: 16 }}
            />
            {ofKind && kind === 'video' ? (
              <PlaygroundForm
                models={ofKind}
                onSubmit={submit}
                pending={create.isPending}
                error={create.error}
                reuse={reuse}
              />
            ) : null}
            {ofKind && kind === 'image' ? (
              <ImageForm
                models={ofKind}
                onSubmit={submitImage}
                pending={generate.isPending || edit.isPending}
                error={generate.error ?? edit.error}
              />
            ) : null}
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          {kind === 'video' && taskId ? <LiveTask key={taskId} taskId={taskId} /> : null}
          {kind === 'image' && images ? <ImageResult result={images} /> : null}
          {(kind === 'video' && !taskId) || (kind === 'image' && !images) ? (
            <Card title={t('playground.result')}>
              <Empty
                description={kind === 'video' ? t('playground.nothingYet') : t('playground.noImagesYet')}
              />
            </Card>
          ) : null}
        </Col>
      </Row>
      {kind === 'video' ? (
        <UploadList onUse={reuseUpload} onDeleted={(url) => setReuse({ url, gone: true })} />
      ) : null}
      {sent && info.data ? (
        <Card title={t('playground.asCode')}>
          <Typography.Paragraph type="secondary">{t('playground.asCodeHint')}</Typography.Paragraph>
          <CodeSnippets call={sent} baseUrl={info.data.base_url} name="playground" />
        </Card>
      ) : null}
    </Space>
  );
}
