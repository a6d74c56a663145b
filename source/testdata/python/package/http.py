import requests
from requests.adapters import HTTPAdapter

from .settings import TIMEOUT


class Adapter(HTTPAdapter):
    def __init__(self, timeout=None, **kwargs):
        self.timeout = timeout
        super().__init__(**kwargs)

    def send(self, request, **kwargs):
        kwargs["timeout"] = self.timeout
        return super().send(request, **kwargs)


session = requests.Session()
session.mount("https://", Adapter(timeout=TIMEOUT))
