<?php

namespace App\Services;

use GuzzleHttp\Client;

// The injected client bound to code the reader does not follow.
class VersionService
{
    public function __construct(protected Client $client)
    {
    }

    public function latest()
    {
        return $this->client->request('GET', 'https://cdn.example.test/releases.json');
    }
}
