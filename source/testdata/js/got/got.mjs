import got from 'got';

const client = got.extend({
  prefixUrl: 'https://search.example.com',
  timeout: { request: 3000, connect: 500 },
  retry: { limit: 4 },
});

export const a = () => got('https://plain.example.com/x');
export const b = () => got.post('https://plain.example.com/x', { json: {} });
export const c = () => client.get('q');
export const d = () => got('https://old.example.com', { timeout: 10000, retry: 0 });
export const e = () => got.post('https://p.example.com', {
  timeout: { response: 2000 },
  retry: { limit: 1, methods: ['POST'] },
  headers: { 'idempotency-key': '1' },
});
