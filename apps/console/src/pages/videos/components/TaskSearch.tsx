import { DownOutlined, SearchOutlined, UpOutlined } from '@ant-design/icons';
import { Button, Form, Input, Select, Space } from 'antd';
import { useEffect, useState } from 'react';
import { $api } from '../../../api/client';
import { useT } from '../../../i18n/i18n';

/** What the task list is narrowed to (all optional): the URL's search parameters. */
export interface TaskSearchValues {
  id?: string;
  key_id?: string;
  model?: string;
  created_from?: string;
  created_to?: string;
}

export const SEARCH_FIELDS = ['id', 'key_id', 'model', 'created_from', 'created_to'] as const;

/**
 * Finds tasks by (the start of) their id, the key that made them, their model and the days they were
 * made. On a phone (`compact`) the form stays behind a Search button unless a search is on, so the
 * tasks, not the form, fill the first screen.
 */
export function TaskSearch({
  values,
  onSearch,
  compact,
}: {
  compact: boolean;
  values: TaskSearchValues;
  onSearch: (values: TaskSearchValues) => void;
}) {
  const t = useT();
  const [form] = Form.useForm<TaskSearchValues>();
  const searching = SEARCH_FIELDS.filter((f) => values[f]).length;
  const [open, setOpen] = useState(searching > 0);
  useEffect(
    () => form.setFieldsValue({ ...Object.fromEntries(SEARCH_FIELDS.map((f) => [f, undefined])), ...values }),
    [form, values],
  );
  const keys = $api.useQuery('get', '/console/api/tokens', undefined, { select: (r) => r.data });
  const models = $api.useQuery('get', '/console/api/models', undefined, { select: (r) => r.data });
  const clean = (v: TaskSearchValues): TaskSearchValues =>
    Object.fromEntries(
      Object.entries(v).filter(([, x]) => typeof x === 'string' && x.trim() !== ''),
    ) as TaskSearchValues;
  const toggle = compact ? (
    <Button
      icon={<SearchOutlined />}
      aria-expanded={open}
      aria-controls="task-search"
      onClick={() => setOpen((o) => !o)}
    >
      {t('videos.search.submit')}
      {searching > 0 ? ` (${searching})` : ''} {open ? <UpOutlined /> : <DownOutlined />}
    </Button>
  ) : null;
  if (compact && !open) return toggle;
  const formElement = (
    <Form<TaskSearchValues>
      id="task-search"
      form={form}
      layout={compact ? 'vertical' : 'inline'}
      role="search"
      aria-label={t('videos.search')}
      onFinish={(v) => onSearch(clean(v))}
      style={{ rowGap: 8 }}
    >
      <Form.Item name="id" label={t('videos.search.id')}>
        <Input allowClear placeholder="task_01…" style={{ width: compact ? '100%' : 220 }} />
      </Form.Item>
      <Form.Item name="key_id" label={t('videos.search.key')}>
        <Select
          allowClear
          style={{ width: compact ? '100%' : 180 }}
          loading={keys.isPending}
          options={(keys.data ?? []).map((k) => ({ value: k.id, label: `${k.name} (${k.display_prefix})` }))}
        />
      </Form.Item>
      <Form.Item name="model" label={t('videos.search.model')}>
        <Select
          allowClear
          style={{ width: compact ? '100%' : 220 }}
          loading={models.isPending}
          options={(models.data ?? [])
            .filter((m) => m.type === 'video')
            .map((m) => ({ value: m.id, label: m.id }))}
        />
      </Form.Item>
      <Form.Item label={t('videos.search.days')} style={{ marginInlineEnd: 8 }}>
        <Space.Compact style={compact ? { width: '100%' } : undefined}>
          <Form.Item name="created_from" noStyle>
            <Input
              type="date"
              aria-label={t('videos.search.from')}
              style={{ width: compact ? '50%' : 150 }}
            />
          </Form.Item>
          <Form.Item name="created_to" noStyle>
            <Input type="date" aria-label={t('videos.search.to')} style={{ width: compact ? '50%' : 150 }} />
          </Form.Item>
        </Space.Compact>
      </Form.Item>
      <Form.Item>
        <Space>
          <Button type="primary" htmlType="submit" icon={<SearchOutlined />}>
            {t('videos.search.submit')}
          </Button>
          <Button
            onClick={() => {
              form.resetFields();
              onSearch({});
            }}
          >
            {t('videos.search.clear')}
          </Button>
        </Space>
      </Form.Item>
    </Form>
  );
  return compact ? (
    <Space orientation="vertical" style={{ width: '100%' }}>
      {toggle}
      {formElement}
    </Space>
  ) : (
    formElement
  );
}
