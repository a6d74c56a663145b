import request from './wrapdefault';
import { callApi } from './wrap.mjs';

export const viaDefault = () => request('https://svc.example.com/x');
export const viaNamed = () => callApi('/c');
