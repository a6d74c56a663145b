import axios from 'axios';

// TypeScript's non-null assertion before a division: `uptime! / 1000` divides, so the
// `/ 60) % 24 ... (` that follows is no regular expression.
export function uptime(client: { uptime?: number }, rows: number[] | undefined) {
  const hours = Math.floor((client.uptime! / 3_600_000) % 24);
  const first = rows![0] / 2, ratio = (rows!)! / 3;
  return axios.get(`https://stats.example.com/${hours}/${first}/${ratio}`, { timeout: 900 });
}
