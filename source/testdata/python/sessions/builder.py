import requests

from .util import Retry


class Api:
    max_retries = 3

    def __init__(self, requests_session=True, retries=max_retries, requests_timeout=5):
        self.retries = retries
        self.requests_timeout = requests_timeout
        if isinstance(requests_session, requests.Session):
            self._session = requests_session
        elif requests_session:
            self._build_session()
        else:
            from requests import api

            self._session = api

    def _build_session(self):
        self._session = requests.Session()
        retry = Retry(total=self.retries, read=False, allowed_methods=frozenset(["GET", "POST"]), status_forcelist=(429, 500, 502))
        adapter = requests.adapters.HTTPAdapter(max_retries=retry)
        self._session.mount("https://", adapter)

    def call(self, method, url, **args):
        return self._session.request(method, url, timeout=self.requests_timeout, **args)
