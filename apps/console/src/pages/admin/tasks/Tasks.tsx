import { Button, Card, Form, Input, InputNumber, Select, Space } from 'antd';
import { useState } from 'react';
import { $api } from '../../../api/client';
import { usePager } from '../../../components/ListCard';
import { useT } from '../../../i18n/i18n';
import { TaskTable } from './components/TaskTable';
import { PageTitle } from '../../../components/PageTitle';

interface Filters {
  status?: 'pending' | 'processing' | 'succeeded' | 'failed';
  model?: string;
  account_id?: string;
  older_than_seconds?: number;
}

/** Tasks still running after this long are shown as stuck. */
export const STUCK_AFTER_SECONDS = 30 * 60;

export function AdminTasksPage() {
  const t = useT();
  const [form] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const pager = usePager(50);
  const tasks = $api.useQuery('get', '/admin/api/tasks', {
    params: {
      query: {
        limit: pager.limit,
        after: pager.cursor,
        ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined && v !== '')),
      },
    },
  });
  const apply = (f: Filters) => {
    pager.reset();
    setFilters(f);
  };
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.tasks')}</PageTitle>
      <Card>
        <Form<Filters> form={form} layout="inline" onFinish={apply} style={{ rowGap: 12 }}>
          <Form.Item label={t('videos.status')} name="status">
            <Select
              allowClear
              style={{ width: 150 }}
              options={(['pending', 'processing', 'succeeded', 'failed'] as const).map((s) => ({
                value: s,
                label: t(`status.${s}`),
              }))}
            />
          </Form.Item>
          <Form.Item label={t('billing.model')} name="model">
            <Input style={{ width: 220 }} allowClear />
          </Form.Item>
          <Form.Item
            label={t('admin.accountId')}
            name="account_id"
            // an e-mail here would find nothing without a word: say where e-mails are searched
            rules={[{ pattern: /^\s*acct_\w+\s*$/, message: t('admin.accountIdHint') }]}
            normalize={(v: string | undefined) => v?.trim()}
          >
            <Input style={{ width: 220 }} allowClear />
          </Form.Item>
          <Form.Item label={t('admin.olderThan')} name="older_than_seconds">
            <InputNumber min={0} precision={0} style={{ width: 120 }} suffix="s" />
          </Form.Item>
          <Space wrap>
            <Button type="primary" htmlType="submit">
              {t('admin.filter')}
            </Button>
            <Button
              onClick={() => {
                const stuck: Filters = { status: 'processing', older_than_seconds: STUCK_AFTER_SECONDS };
                form.setFieldsValue(stuck);
                apply(stuck);
              }}
            >
              {t('admin.stuck')}
            </Button>
            <Button
              onClick={() => {
                form.resetFields();
                apply({});
              }}
            >
              {t('admin.clear')}
            </Button>
          </Space>
        </Form>
      </Card>
      <TaskTable query={tasks} pager={pager} />
    </Space>
  );
}
