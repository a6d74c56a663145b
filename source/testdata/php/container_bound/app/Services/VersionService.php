<?php

namespace App\Services;

use GuzzleHttp\Client;

// The same injected client, bound in a service provider of the package.
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
