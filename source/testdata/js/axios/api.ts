import axios, { AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';

// The project's one client: an idle timeout, retried by axios-retry.
const api: AxiosInstance = axios.create({
  baseURL: 'https://orders.example.com/v2',
  timeout: 5000,
});

axiosRetry(api, { retries: 2, retryDelay: axiosRetry.exponentialDelay });

export default api;

export const bounded = axios.create({ timeout: 1000, signal: AbortSignal.timeout(8000) });

// A wrapper that builds the client.
export function makeClient() {
  return axios.create({ timeout: 700 });
}
