import { Alert, Button, Card, Skeleton, Space, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { $api } from '../../api/client';
import { CodeSnippets } from '../../components/CodeSnippets';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageTitle } from '../../components/PageTitle';
import { useT } from '../../i18n/i18n';
import { formatUsd } from '../../lib/format';
import { KEY_VARIABLE } from '../../lib/snippets';

/** A prompt for the first image: short, so that the first call is quick to read and to send. */
const FIRST_PROMPT = 'a red paper boat on a calm blue pond, morning light';
const SAMPLE_IMAGE = 'https://example.com/your-image.png';

/**
 * Everything a first call needs, from what the console knows: the base URL, the account's keys (by
 * their shown prefix), the calls to copy (free, then one the test credit pays for, then a video) and
 * the way to the API reference.
 */
export function QuickStartPage() {
  const t = useT();
  const info = $api.useQuery('get', '/console/api/quickstart');
  const keys = $api.useQuery('get', '/console/api/tokens', undefined, { select: (r) => r.data });
  const models = $api.useQuery('get', '/console/api/models', undefined, { select: (r) => r.data });
  // once the account has topped up, what the test credit covers is no longer its story
  const topups = $api.useQuery(
    'get',
    '/console/api/ledger',
    { params: { query: { kind: 'topup', limit: 1 } } },
    { select: (r) => r.data },
  );
  // the test credit's story is told only once the ledger says there was no top-up (never while it
  // loads, so a paying account does not see it flash; never when it could not be read)
  const onTestCredit = topups.isSuccess && topups.data.length === 0;
  const cheapestVideo = models.data
    ?.filter((m) => m.type === 'video')
    .sort(
      (a, b) =>
        Math.min(a.price_usd, a.silent_price_usd ?? Infinity) -
        Math.min(b.price_usd, b.silent_price_usd ?? Infinity),
    )[0];
  const active = keys.data?.filter((k) => k.status === 'active') ?? [];
  const q = info.data;
  const check = q?.connectivity_check;

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <PageTitle>{t('nav.quickstart')}</PageTitle>
      <Typography.Paragraph style={{ margin: 0 }}>{t('quickstart.intro')}</Typography.Paragraph>
      {info.error ? <ErrorAlert error={info.error} onRetry={() => void info.refetch()} /> : null}
      {!q ? (
        <Skeleton active />
      ) : (
        <>
          <Card title={t('quickstart.baseUrl')}>
            <Typography.Text code copyable data-testid="base-url" style={{ fontSize: 15 }}>
              {q.base_url}
            </Typography.Text>
          </Card>
          <Card title={t('quickstart.keyTitle')}>
            <Typography.Paragraph>{t('quickstart.keyText', { variable: KEY_VARIABLE })}</Typography.Paragraph>
            <Typography.Paragraph>
              <Typography.Text code copyable>{`export ${KEY_VARIABLE}=sk-...`}</Typography.Text>
            </Typography.Paragraph>
            {keys.error ? <ErrorAlert error={keys.error} onRetry={() => void keys.refetch()} /> : null}
            {keys.data ? (
              active.length > 0 ? (
                <Typography.Paragraph>
                  {t('quickstart.yourKeys')}{' '}
                  {active.map((k) => (
                    <Tag key={k.id} data-testid="key-prefix" style={{ fontFamily: 'monospace' }}>
                      {k.display_prefix} · {k.name}
                    </Tag>
                  ))}
                </Typography.Paragraph>
              ) : (
                <Alert type="warning" showIcon title={t('quickstart.noKey')} style={{ marginBottom: 12 }} />
              )
            ) : null}
            <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
              {t('quickstart.keyLost')}
            </Typography.Paragraph>
            <Link to="/console/keys">
              <Button>{t('quickstart.createKey')}</Button>
            </Link>
          </Card>
          <Card title={t('quickstart.step1')}>
            <Typography.Paragraph type="secondary">{t('quickstart.step1Text')}</Typography.Paragraph>
            <CodeSnippets name="models" call={{ kind: 'models' }} baseUrl={q.base_url} />
          </Card>
          {check ? (
            <Card title={t('quickstart.step2', { price: formatUsd(check.price_usd) })}>
              {onTestCredit ? (
                <Alert
                  type="success"
                  showIcon
                  data-testid="test-credit-covers"
                  style={{ marginBottom: 12 }}
                  title={t(check.calls === 1 ? 'quickstart.step2CreditOne' : 'quickstart.step2Credit', {
                    credit: formatUsd(q.test_credit_usd),
                    calls: check.calls,
                    model: check.model,
                  })}
                />
              ) : null}
              <Typography.Paragraph type="secondary">
                {t('quickstart.step2Paid', { model: check.model, price: formatUsd(check.price_usd) })}
              </Typography.Paragraph>
              <CodeSnippets
                name="image"
                call={{ kind: 'image', model: check.model, prompt: FIRST_PROMPT }}
                baseUrl={q.base_url}
              />
            </Card>
          ) : (
            <Alert
              type="info"
              showIcon
              title={t('quickstart.noCheck', { credit: formatUsd(q.test_credit_usd) })}
            />
          )}
          {cheapestVideo ? (
            <Card
              title={t('quickstart.step3', {
                price: formatUsd(
                  Math.min(cheapestVideo.price_usd, cheapestVideo.silent_price_usd ?? Infinity),
                ),
              })}
            >
              <Typography.Paragraph type="secondary">
                {t(onTestCredit ? 'quickstart.step3Text' : 'quickstart.step3TextPaid')}
              </Typography.Paragraph>
              <CodeSnippets
                name="video"
                call={{
                  kind: 'video',
                  model: cheapestVideo.id,
                  prompt: 'the boat drifts slowly across the pond',
                  imageUrl: SAMPLE_IMAGE,
                }}
                baseUrl={q.base_url}
              />
            </Card>
          ) : null}
          <Card title={t('quickstart.reference')}>
            <Space wrap>
              <span>{t('quickstart.referenceText')}</span>
              <a href={q.docs_url} target="_blank" rel="noreferrer">
                {q.docs_url}
              </a>
              <Link to="/console/models">{t('quickstart.models')}</Link>
            </Space>
          </Card>
        </>
      )}
    </Space>
  );
}
