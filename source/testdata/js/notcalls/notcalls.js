import axios from 'axios';
import express from 'express';

const router = express.Router();
router.get('/x', (req, res) => res.send('ok'));

class Repo {
  async fetch(url) { return url; }
  get(key) { return this.cache.get(key); }
}

function get(x) { return x; }
get(1);

const instance = axios.create({ timeout: 1 });
if (axios.isAxiosError(new Error())) {
  instance.interceptors.request.use((c) => c);
}
new Repo().fetch('x');

// A fetch passed in by the caller, destructured from the props.
export function List({ fetch, items }) {
  return fetch({ limit: items.length });
}

export function Other(props) {
  const { fetch: load } = props;
  return load();
}
