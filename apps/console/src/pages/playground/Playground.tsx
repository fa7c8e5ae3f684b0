import { useQueryClient } from '@tanstack/react-query';
import { Card, Col, Empty, Row, Space, Typography } from 'antd';
import { useState } from 'react';
import { $api, keyOf } from '../../api/client';
import { CodeSnippets } from '../../components/CodeSnippets';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useT } from '../../i18n/i18n';
import type { SnippetCall } from '../../lib/snippets';
import { LiveTask } from './components/LiveTask';
import { PlaygroundForm, type PlaygroundValues } from './components/PlaygroundForm';

/**
 * Try a video model without code: a model, an image and a prompt, the price before sending, the task
 * live until it plays, and the same request as code to copy. The calls go to the console's own
 * route on the session (no key in the page), billed and limited as the account's playground key.
 */
export function PlaygroundPage() {
  const t = useT();
  const client = useQueryClient();
  const models = $api.useQuery('get', '/console/api/models', undefined, {
    select: (r) => r.data.filter((m) => m.type === 'video'),
  });
  const info = $api.useQuery('get', '/console/api/quickstart');
  const [taskId, setTaskId] = useState<string | null>(null);
  const [sent, setSent] = useState<SnippetCall | null>(null);
  const create = $api.useMutation('post', '/console/api/playground/videos', {
    onSuccess: (task) => {
      setTaskId(task.id);
      for (const path of ['/console/api/balance', '/console/api/me', '/console/api/videos'] as const)
        void client.invalidateQueries({ queryKey: keyOf(path) });
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
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
        {t('nav.playground')}
      </Typography.Title>
      <Typography.Paragraph style={{ margin: 0 }}>{t('playground.intro')}</Typography.Paragraph>
      {models.error ? <ErrorAlert error={models.error} onRetry={() => void models.refetch()} /> : null}
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <Card title={t('playground.request')} loading={models.isPending}>
            {models.data ? (
              <PlaygroundForm
                models={models.data}
                onSubmit={submit}
                pending={create.isPending}
                error={create.error}
              />
            ) : null}
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          {taskId ? (
            <LiveTask key={taskId} taskId={taskId} />
          ) : (
            <Card title={t('playground.result')}>
              <Empty description={t('playground.nothingYet')} />
            </Card>
          )}
        </Col>
      </Row>
      {sent && info.data ? (
        <Card title={t('playground.asCode')}>
          <Typography.Paragraph type="secondary">{t('playground.asCodeHint')}</Typography.Paragraph>
          <CodeSnippets call={sent} baseUrl={info.data.base_url} name="playground" />
        </Card>
      ) : null}
    </Space>
  );
}
