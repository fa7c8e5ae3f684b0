import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './global.css';
import { Root } from './root';

const container = document.getElementById('root');
if (container) {
  createRoot(container).render(
    <StrictMode>
      <Root />
    </StrictMode>,
  );
}
