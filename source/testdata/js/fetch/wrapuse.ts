import request from './wrapdefault';
import { callApi } from './wrap.mjs';

export const viaDefault = () => request('https://svc.example.com/x');
export const viaNamed = () => callApi('/c');
import { typed } from './wrapdefault';
export const viaTyped = () => typed('https://typed.example.com/x', { timeout: 100 });
