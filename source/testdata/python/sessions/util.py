import urllib3


class Retry(urllib3.Retry):
    """A Retry that logs the Retry-After header."""
