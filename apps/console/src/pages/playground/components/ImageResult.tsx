import { DownloadOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Col, Image, Row, Space, Typography } from 'antd';
import type { components } from '../../../api/schema';
import { useT } from '../../../i18n/i18n';

type ImagesResponse = components['schemas']['PlaygroundImagesResponse'];

/**
 * The images of one call, each shown (click to enlarge) with a download and its link to copy; a
 * batch that delivered fewer than it asked says so (only those delivered are billed).
 */
export function ImageResult({ result }: { result: ImagesResponse }) {
  const t = useT();
  const images = result.data.flatMap((d, i) => {
    const src = d.url ?? (d.b64_json ? `data:image/png;base64,${d.b64_json}` : null);
    // a hosted image downloads through the API (a browser opens another origin's image instead);
    // an inline one is its own data: URL
    const download = d.download_url ?? (d.b64_json ? src : null);
    return src ? [{ src, download, link: d.url ?? null, i }] : [];
  });
  const short =
    result.requested !== undefined && result.delivered !== undefined && result.delivered < result.requested;
  return (
    <Card title={t('playground.result')}>
      <Space orientation="vertical" style={{ width: '100%' }}>
        {short ? (
          <Alert
            type="warning"
            showIcon
            title={t('playground.imagesShort', {
              delivered: result.delivered ?? 0,
              requested: result.requested ?? 0,
            })}
          />
        ) : null}
        <Row gutter={[12, 12]}>
          {images.map(({ src, download, link, i }) => (
            <Col key={i} xs={24} sm={images.length > 1 ? 12 : 24}>
              <Space orientation="vertical" style={{ width: '100%' }}>
                <Image
                  data-testid="playground-image"
                  src={src}
                  alt={t('playground.resultImage', { n: i + 1 })}
                  style={{ width: '100%', maxHeight: 420, objectFit: 'contain', borderRadius: 8 }}
                />
                <Space wrap>
                  {download ? (
                    <Button
                      icon={<DownloadOutlined />}
                      href={download}
                      download={`image-${result.created}-${i + 1}.png`}
                      data-testid="playground-image-download"
                    >
                      {t('playground.download')}
                    </Button>
                  ) : null}
                  {link ? (
                    <Typography.Text copyable={{ text: link }}>{t('playground.copyLink')}</Typography.Text>
                  ) : null}
                </Space>
              </Space>
            </Col>
          ))}
        </Row>
      </Space>
    </Card>
  );
}
