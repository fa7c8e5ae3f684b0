import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Popconfirm } from 'antd';
import { api, keyOf, unwrap } from '../../../../api/client';
import { useErrorText } from '../../../../components/ErrorAlert';
import { useT } from '../../../../i18n/i18n';

/** Runs a failed task again as a new task (audited); the task lists and pages are read again. */
export function useRetryTask(onRetried?: (newId: string) => void) {
  const t = useT();
  const { message } = App.useApp();
  // a toast speaks the page's language (error boxes keep the API's words for operators)
  const errorText = useErrorText();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (taskId: string) =>
      unwrap(api.POST('/admin/api/tasks/{taskId}/retry', { params: { path: { taskId } } })),
    onSuccess: (r) => {
      void message.success(t('admin.retried', { id: r.id }));
      void client.invalidateQueries({ queryKey: keyOf('/admin/api/tasks') });
      void client.invalidateQueries({ queryKey: keyOf('/admin/api/tasks/{taskId}') });
      onRetried?.(r.id);
    },
    onError: (err) => void message.error(errorText(err)),
  });
}

/** The confirmed retry of a failed task; nothing for a task in any other state. */
export function RetryButton({
  task,
  retry,
  size = 'small',
}: {
  task: { id: string; status: string };
  retry: ReturnType<typeof useRetryTask>;
  size?: 'small' | 'middle';
}) {
  const t = useT();
  if (task.status !== 'failed') return null;
  return (
    <Popconfirm
      title={t('admin.retryConfirm')}
      description={t('admin.retryHint')}
      okText={t('admin.retry')}
      cancelText={t('common.cancel')}
      onConfirm={() => retry.mutate(task.id)}
    >
      <Button
        size={size}
        loading={retry.isPending && retry.variables === task.id}
        aria-label={`${t('admin.retry')} ${task.id}`}
      >
        {t('admin.retry')}
      </Button>
    </Popconfirm>
  );
}
