import axios from 'axios';

type Maybe<T> = T | undefined;

export class Service<T extends object> {
  #secret = 1;
  private cache: Map<string, Array<T>> = new Map();

  async load(id: string): Promise<Maybe<T>> {
    const ratio = this.#secret / 2;
    const r = <T>(await axios.get<T>(`https://svc.example.com/${id}/${ratio}`, { timeout: 250 })).data;
    return r as Maybe<T>;
  }
}
