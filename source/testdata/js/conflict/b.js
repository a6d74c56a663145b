import axios from 'axios';
import { setGlobalDispatcher, Agent } from 'undici';

axios.defaults.timeout = 9000;
setGlobalDispatcher(new Agent({ headersTimeout: 9000 }));
