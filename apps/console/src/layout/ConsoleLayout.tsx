import {
  ApiOutlined,
  AppstoreOutlined,
  AuditOutlined,
  BarChartOutlined,
  CloudServerOutlined,
  DashboardOutlined,
  DisconnectOutlined,
  ExperimentOutlined,
  KeyOutlined,
  LockOutlined,
  LogoutOutlined,
  MenuOutlined,
  PlaySquareOutlined,
  RocketOutlined,
  TeamOutlined,
  UnorderedListOutlined,
  UserOutlined,
  WalletOutlined,
} from '@ant-design/icons';
import { Button, Drawer, Dropdown, Grid, Layout, Menu, type MenuProps, Spin, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useLogout, useMe } from '../auth';
import { LanguageSwitch } from '../components/LanguageSwitch';
import { useT } from '../i18n/i18n';

/** The dashboard's path, the console's root. */
const HOME = '/console';

/**
 * The menu key of a path: the longest menu path that starts it (a task's page under the task list),
 * except the dashboard's, which is its own page only. No key: a page outside the menu.
 */
export function selectedKey(pathname: string, keys: string[]): string | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return keys
    .filter((k) => path === k || (k !== HOME && path.startsWith(`${k}/`)))
    .sort((a, b) => b.length - a.length)[0];
}

export function ConsoleLayout() {
  const t = useT();
  const me = useMe();
  const screens = Grid.useBreakpoint();
  const wide = screens.lg ?? true;
  const [open, setOpen] = useState(false);
  const location = useLocation();
  const navigate = useNavigate();
  const logout = useLogout();

  const items: NonNullable<MenuProps['items']> = [
    { key: '/console', icon: <DashboardOutlined />, label: <Link to="/console">{t('nav.dashboard')}</Link> },
    {
      key: '/console/quickstart',
      icon: <RocketOutlined />,
      label: <Link to="/console/quickstart">{t('nav.quickstart')}</Link>,
    },
    {
      key: '/console/models',
      icon: <AppstoreOutlined />,
      label: <Link to="/console/models">{t('nav.models')}</Link>,
    },
    {
      key: '/console/playground',
      icon: <ExperimentOutlined />,
      label: <Link to="/console/playground">{t('nav.playground')}</Link>,
    },
    { key: '/console/keys', icon: <KeyOutlined />, label: <Link to="/console/keys">{t('nav.keys')}</Link> },
    {
      key: '/console/topup',
      icon: <WalletOutlined />,
      label: <Link to="/console/topup">{t('nav.topup')}</Link>,
    },
    {
      key: '/console/billing',
      icon: <BarChartOutlined />,
      label: <Link to="/console/billing">{t('nav.billing')}</Link>,
    },
    {
      key: '/console/videos',
      icon: <PlaySquareOutlined />,
      label: <Link to="/console/videos">{t('nav.videos')}</Link>,
    },
    {
      key: '/console/webhooks',
      icon: <ApiOutlined />,
      label: <Link to="/console/webhooks">{t('nav.webhooks')}</Link>,
    },
  ];
  if (me.data?.role === 'admin') {
    items.push({
      type: 'group',
      key: 'admin',
      label: t('nav.operators'),
      children: [
        {
          key: '/admin/accounts',
          icon: <TeamOutlined />,
          label: <Link to="/admin/accounts">{t('nav.accounts')}</Link>,
        },
        {
          key: '/admin/tasks',
          icon: <UnorderedListOutlined />,
          label: <Link to="/admin/tasks">{t('nav.tasks')}</Link>,
        },
        {
          key: '/admin/queue-status',
          icon: <CloudServerOutlined />,
          label: <Link to="/admin/queue-status">{t('nav.queues')}</Link>,
        },
        {
          key: '/admin/webhook-endpoints',
          icon: <DisconnectOutlined />,
          label: <Link to="/admin/webhook-endpoints">{t('nav.endpoints')}</Link>,
        },
        {
          key: '/admin/audit',
          icon: <AuditOutlined />,
          label: <Link to="/admin/audit">{t('nav.audit')}</Link>,
        },
      ],
    });
  }
  const keys = items.flatMap((i) =>
    i && 'children' in i && i.children ? i.children.map((c) => String(c?.key)) : [String(i?.key)],
  );
  const menu = (
    <Menu
      mode="inline"
      items={items}
      selectedKeys={[selectedKey(location.pathname, keys) ?? '']}
      onClick={() => setOpen(false)}
      style={{ borderInlineEnd: 'none' }}
    />
  );
  const userMenu: MenuProps = {
    items: [
      { key: 'password', icon: <LockOutlined />, label: t('nav.changePassword') },
      { key: 'logout', icon: <LogoutOutlined />, label: t('nav.logout') },
    ],
    onClick: ({ key }) => {
      if (key === 'password') navigate('/console/password');
      if (key === 'logout') void logout();
    },
  };

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {wide ? (
        <Layout.Sider theme="light" width={220} style={{ borderInlineEnd: '1px solid #f0f0f0' }}>
          <div style={{ padding: '16px 24px', fontWeight: 600, fontSize: 18 }}>mediagate</div>
          <nav aria-label={t('nav.main')}>{menu}</nav>
        </Layout.Sider>
      ) : (
        <Drawer
          placement="left"
          open={open}
          onClose={() => setOpen(false)}
          size={260}
          title="mediagate"
          styles={{ body: { padding: 0 } }}
        >
          <nav aria-label={t('nav.main')}>{menu}</nav>
        </Drawer>
      )}
      <Layout>
        <Layout.Header
          style={{
            background: '#fff',
            padding: wide ? '0 24px' : '0 12px',
            display: 'flex',
            alignItems: 'center',
            gap: 12,
            borderBottom: '1px solid #f0f0f0',
          }}
        >
          {!wide && (
            <Button
              type="text"
              icon={<MenuOutlined />}
              aria-label={t('nav.openMenu')}
              onClick={() => setOpen(true)}
            />
          )}
          {!wide && <Typography.Text strong>mediagate</Typography.Text>}
          <div style={{ flex: 1 }} />
          <LanguageSwitch />
          <Dropdown menu={userMenu} trigger={['click']}>
            <Button type="text" icon={<UserOutlined />} aria-label={t('nav.account')}>
              {wide ? me.data?.email : null}
            </Button>
          </Dropdown>
        </Layout.Header>
        {/* the page's one main landmark (Layout.Content is a <main>) */}
        <Layout.Content style={{ padding: wide ? 24 : 12 }}>
          <Suspense fallback={<Spin />}>
            <Outlet />
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
