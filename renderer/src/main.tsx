import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connect } from './api/client';
import { ConnectionProvider } from './api/context';
import { App } from './app/App';
import './styles/app.css';

const connection = connect();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ConnectionProvider connection={connection}>
      <App />
    </ConnectionProvider>
  </StrictMode>,
);
