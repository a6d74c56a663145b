import axios, { AxiosInstance } from 'axios';

// One field assigned an instance in one of two branches, the same bounds in both (none): the
// calls through it have them.
export class GenericSms {
  private axiosInstance: AxiosInstance;

  constructor(private config: { byToken: boolean; baseUrl: string }) {
    if (!this.config.byToken) {
      this.axiosInstance = axios.create({ baseURL: config.baseUrl, headers: {} });
    }
  }

  async send(body: unknown) {
    if (this.config.byToken) {
      this.axiosInstance = axios.create({
        baseURL: this.config.baseUrl,
        headers: { token: 'x' },
      });
    }
    return this.axiosInstance.request({ method: 'POST', data: body });
  }
}

// Two branches that bound it differently: which one runs is not known.
export class Differs {
  private http: AxiosInstance;

  constructor(fast: boolean) {
    if (fast) {
      this.http = axios.create({ timeout: 500 });
    } else {
      this.http = axios.create({ timeout: 5000 });
    }
  }

  get(url: string) {
    return this.http.get(url);
  }
}

// Two branches with the same timeout: that timeout.
export class Agrees {
  private client: AxiosInstance;

  constructor(base?: string) {
    if (base) {
      this.client = axios.create({ baseURL: base, timeout: 2500 });
    } else {
      this.client = axios.create({ timeout: 2500 });
    }
  }

  get(url: string) {
    return this.client.get(url);
  }
}
