import { Spin } from 'antd';
import { createBrowserRouter, Navigate } from 'react-router';
import { RequireSession } from './auth';
import { PublicLayout } from './layout/PublicLayout';
import { QueueDashboardRedirect } from './pages/admin/QueueDashboardRedirect';
import { LoginPage } from './pages/Login';

// Every page but the sign-in page is its own chunk, loaded when first opened.
const page =
  <K extends string>(load: () => Promise<Record<K, React.ComponentType>>, name: K) =>
  async () => ({ Component: (await load())[name] });

export const routes = [
  { path: '/', element: <Navigate to="/console" replace /> },
  {
    element: <PublicLayout />,
    children: [
      { path: '/login', element: <LoginPage /> },
      { path: '/signup', lazy: page(() => import('./pages/Signup'), 'SignupPage') },
      { path: '/forgot-password', lazy: page(() => import('./pages/ForgotPassword'), 'ForgotPasswordPage') },
    ],
  },
  // bull-board is served by the API itself; the page only signs in first
  { path: '/admin/queues/*', element: <QueueDashboardRedirect /> },
  {
    // the signed-in shell (menu, drawer, header) is loaded after signing in, not with the sign-in page
    lazy: async () => {
      const { ConsoleLayout } = await import('./layout/ConsoleLayout');
      return {
        element: (
          <RequireSession>
            <ConsoleLayout />
          </RequireSession>
        ),
      };
    },
    children: [
      { path: '/console', lazy: page(() => import('./pages/Dashboard'), 'DashboardPage') },
      {
        path: '/console/quickstart',
        lazy: page(() => import('./pages/quickstart/QuickStart'), 'QuickStartPage'),
      },
      { path: '/console/models', lazy: page(() => import('./pages/models/Models'), 'ModelsPage') },
      {
        path: '/console/playground',
        lazy: page(() => import('./pages/playground/Playground'), 'PlaygroundPage'),
      },
      { path: '/console/keys', lazy: page(() => import('./pages/keys/Keys'), 'KeysPage') },
      { path: '/console/topup', lazy: page(() => import('./pages/topup/TopUp'), 'TopUpPage') },
      { path: '/console/billing', lazy: page(() => import('./pages/Billing'), 'BillingPage') },
      { path: '/console/videos', lazy: page(() => import('./pages/videos/VideosPage'), 'VideosPage') },
      {
        path: '/console/videos/:taskId',
        lazy: page(() => import('./pages/videos/VideoDetailPage'), 'VideoDetailPage'),
      },
      { path: '/console/webhooks', lazy: page(() => import('./pages/Webhooks'), 'WebhooksPage') },
      { path: '/console/password', lazy: page(() => import('./pages/ChangePassword'), 'ChangePasswordPage') },
      {
        lazy: page(() => import('./layout/RequireAdmin'), 'RequireAdmin'),
        children: [
          { path: '/admin', element: <Navigate to="/admin/accounts" replace /> },
          { path: '/admin/accounts', lazy: page(() => import('./pages/admin/Accounts'), 'AccountsPage') },
          {
            path: '/admin/accounts/:accountId',
            lazy: page(() => import('./pages/admin/account/AccountDetail'), 'AccountDetailPage'),
          },
          { path: '/admin/tasks', lazy: page(() => import('./pages/admin/tasks/Tasks'), 'AdminTasksPage') },
          {
            path: '/admin/tasks/:taskId',
            lazy: page(() => import('./pages/admin/tasks/TaskDetail'), 'AdminTaskDetailPage'),
          },
          { path: '/admin/queue-status', lazy: page(() => import('./pages/admin/Queues'), 'QueuesPage') },
          {
            path: '/admin/webhook-endpoints',
            lazy: page(() => import('./pages/admin/WebhookEndpoints'), 'AdminWebhookEndpointsPage'),
          },
          { path: '/admin/audit', lazy: page(() => import('./pages/admin/AuditLog'), 'AuditLogPage') },
        ],
      },
      { path: '*', lazy: page(() => import('./pages/NotFound'), 'NotFoundPage') },
    ],
  },
];

export const router = createBrowserRouter([
  {
    // shown while the first page's code loads (every page but the sign-in page is loaded lazily)
    hydrateFallbackElement: (
      <div style={{ display: 'grid', placeItems: 'center', minHeight: '100vh' }}>
        <Spin size="large" />
      </div>
    ),
    children: routes,
  },
]);
