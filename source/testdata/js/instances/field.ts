import axios from 'axios';

// A class field holding an instance made with no options, called with options that are one
// object or undefined: neither branch bounds the call, so it waits as long as the instance.
export class OnCall {
  private axiosInstance = axios.create();

  async send(url: URL, body: unknown, headers?: Record<string, string>) {
    const has = headers && Object.keys(headers).length > 0;
    const { data } = await this.axiosInstance.post(
      url.toString(),
      body,
      has
        ? {
            headers: headers as Record<string, string>,
          }
        : undefined,
    );
    // One branch bounds it and the other does not: not guessed.
    await this.axiosInstance.get(url.toString(), has ? { timeout: 300 } : undefined);
    return data;
  }
}
