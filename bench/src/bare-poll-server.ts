// The poll baseline: a bare Express + pg handler that reads one task row by id and answers it.
import express from 'express';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = express();
app.get('/task/:id', async (req, res) => {
  const { rows } = await pool.query('select * from tasks where id = $1', [req.params.id]);
  if (!rows[0]) return void res.status(404).json({ error: 'not found' });
  res.json(rows[0]);
});
app.get('/healthz', (_req, res) => void res.json({ ok: true }));
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
