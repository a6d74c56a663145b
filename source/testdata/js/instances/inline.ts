import axios from 'axios';

// An instance made inline and used once: its call, with the instance's bounds (none here).
export async function send(url: string, body: unknown, key: string) {
  const a = await axios.create().post(url, body, { headers: { Authorization: key } });
  const b = await axios.create().post(
    'https://sms.example.com/v3/send',
    { messages: [body] },
    { headers: { Authorization: key } },
  );
  const c = await axios.create({ timeout: 1200 }).get('https://sms.example.com/status');
  // A promise's then is no call of its own; the get before it is.
  const d = await axios.create().get(url).then((r) => r.data);
  return [a, b, c, d];
}
