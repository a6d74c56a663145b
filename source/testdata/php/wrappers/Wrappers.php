<?php

namespace App\Http;

use GuzzleHttp\Client;
use GuzzleHttp\Psr7\Request;
use Illuminate\Http\Client\PendingRequest;
use Illuminate\Support\Facades\Http;

// A wrapper that reassigns its pending request and returns one of two: both are Laravel's,
// the options it may add are computed.
class SafeHttp
{
    public function get(string $url)
    {
        return $this->build([])->get($url);
    }

    public function post(string $url, array $data)
    {
        return $this->build([], ['timeout' => 3])->post($url, $data);
    }

    private function build(array $headers, array $extra = []): PendingRequest
    {
        $request = Http::timeout(10);
        if ($extra !== []) {
            $request = $request->withOptions($extra);
        }
        return $headers === [] ? $request : $request->withHeaders($headers);
    }
}

// A service that builds Guzzle clients for others (a factory method of the package).
class HttpRequestService
{
    public function buildClient(): Client
    {
        return new Client(['timeout' => 5, 'connect_timeout' => 1]);
    }
}

class Avatars
{
    public function __construct(protected HttpRequestService $http)
    {
    }

    public function fetch(string $email)
    {
        // PSR-18 sendRequest on a client from the factory: the method and host as written.
        $client = $this->http->buildClient();
        return $client->sendRequest(new Request('GET', 'https://avatars.example.test/' . md5($email)));
    }

    public function deliver(HttpRequestService $http, string $url, array $headers)
    {
        // Headers through curl options: whether a key is set is not visible.
        return $http->buildClient()->post($url, ['curl' => [CURLOPT_HTTPHEADER => $headers]]);
    }
}

class Prices
{
    public function all()
    {
        // Http::pool: each request of the pool is a call, at Laravel's defaults unless chained.
        return Http::pool(fn (\Illuminate\Http\Client\Pool $pool) => [
            $pool->as('eu')->timeout(3)->get('https://eu.prices.example.test/'),
            $pool->get('https://us.prices.example.test/'),
        ]);
    }
}

// A pending request built over several reassignments in one method, refined in another.
class DavClient
{
    public function getRequest(): PendingRequest
    {
        $request = Http::withUserAgent('dav');
        if ($this->local) {
            $request = $request->withoutVerifying();
        }
        if ($this->username !== null) {
            $request = $request->withBasicAuth($this->username, $this->password);
        }
        return $request;
    }

    public function propfind(string $url, $body)
    {
        $request = $this->getRequest()->withHeaders(['Depth' => '1'])->timeout(15);
        if ($body !== null) {
            $request = $request->withBody($body, 'application/xml');
        }
        return $request->send('PROPFIND', $url);
    }
}
