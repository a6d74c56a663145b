<?php

namespace App\Services;

use GuzzleHttp\Client;
use GuzzleHttp\ClientInterface;

// Guzzle clients the Laravel container builds: no binding of GuzzleHttp\Client in the package,
// so each is new Client() at Guzzle's defaults.
class VersionService
{
    public function __construct(
        protected Client $client,
        private ClientInterface $psr,
    ) {
    }

    // A promoted constructor property.
    public function latest(): array
    {
        $response = $this->client->request('GET', 'https://cdn.example.test/releases.json');

        return json_decode($response->getBody(), true);
    }

    // An interface the container cannot build without a binding: not followed.
    public function viaInterface()
    {
        return $this->psr->get('https://cdn.example.test/ping');
    }

    // A parameter of an ordinary method: the caller passes it, not the container.
    public function passedIn(Client $other)
    {
        return $other->get('https://cdn.example.test/other');
    }
}

// A constructor parameter kept in a declared property.
class AssignedService
{
    private Client $http;

    public function __construct(Client $http)
    {
        $this->http = $http;
    }

    public function ping()
    {
        return $this->http->post('https://status.example.test/ping');
    }
}

// A class the package builds itself with new: its constructor's client is the one passed.
class BuiltByHand
{
    public function __construct(private Client $client)
    {
    }

    public function fetch()
    {
        return $this->client->get('https://hand.example.test/data');
    }

    public static function make(): self
    {
        return new BuiltByHand(new Client(['timeout' => 3]));
    }
}
