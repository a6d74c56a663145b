import api, { bounded } from './api';
import axios from 'axios';

interface User { id: string }

export async function users(): Promise<User[]> {
  const res = await api.get<User[]>('/users');
  return res.data;
}

export async function order(body: object, key: string) {
  await api.post('/orders', body, { headers: { 'Idempotency-Key': key } });
  await api.post('/orders', body);
}

export async function plain() {
  return axios.get('https://status.example.com/ping', { timeout: 0 });
}

export async function global(url: string) {
  return axios(url);
}

export async function config() {
  return axios({ method: 'patch', url: 'https://crm.example.com/x', timeout: 1500, signal: AbortSignal.timeout(4000) });
}

export async function both() {
  return bounded.put('https://inventory.example.com/sku/1', {});
}

export class Gateway {
  private readonly http = axios.create({ timeout: 2 * 1000 });
  constructor(private other: any) {
    this.retrying = axios.create({ baseURL: 'https://gw.example.com' });
  }
  retrying: any;

  charge(amount: number) {
    return this.http.post<{ ok: boolean }>('https://pay.example.com/charge', { amount });
  }

  list() {
    return this.retrying.get('/list', { timeout: this.other.timeout });
  }
}

import { makeClient } from './api';
import type { AxiosInstance } from 'axios';

const made = makeClient();

export function viaWrapper() {
  return made.get('https://made.example.com/x');
}

export function injected(http: AxiosInstance) {
  return http.delete('https://gone.example.com/x');
}

// The same instance through a path alias (tsconfig paths: "@/*").
import aliased from '@/axios/api';

export const viaAlias = () => aliased.get('/alias');

export async function configVariable(extra: object) {
  let config = { method: 'post', url: 'https://sms.example.com/send', timeout: 3000 };
  const fixed = { method: 'put', url: 'https://sms.example.com/put', timeout: 3000 };
  config = { ...config, ...extra };
  await axios(fixed);
  return axios(config);
}

export async function viaRequest() {
  const options = { method: 'DELETE', url: 'https://req.example.com/x' };
  return axios.request(options);
}
