import fetch from 'node-fetch';

export const v2 = () => fetch('https://legacy.example.com/a', { timeout: 4000 });
export const bare = () => fetch('https://legacy.example.com/b', { method: 'POST' });
