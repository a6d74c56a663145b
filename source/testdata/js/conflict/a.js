import axios from 'axios';
import { setGlobalDispatcher, Agent } from 'undici';

// Set twice, to different values: which runs last is not known.
axios.defaults.timeout = 1000;
setGlobalDispatcher(new Agent({ headersTimeout: 1000 }));

export const get = () => axios.get('https://a.example.com');
export const head = () => fetch('https://a.example.com');
