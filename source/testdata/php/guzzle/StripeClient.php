<?php

namespace App\Services;

use GuzzleHttp\Client;
use GuzzleHttp\ClientInterface;
use GuzzleHttp\HandlerStack;
use GuzzleHttp\Middleware;
use GuzzleHttp\RequestOptions;
use GuzzleHttp\Handler\StreamHandler;

class StripeClient
{
    private const BASE = 'https://api.stripe.test';

    private Client $client;

    public function __construct()
    {
        // A client built in the constructor: its options reach every call through $this->client.
        $this->client = new Client([
            'base_uri' => self::BASE,
            'timeout' => 5,
            'connect_timeout' => 2,
        ]);
    }

    public function charge(array $payload, string $key)
    {
        return $this->client->post('/v1/charges', [
            'json' => $payload,
            'headers' => ['Idempotency-Key' => $key],
        ]);
    }

    public function balance()
    {
        // Request options override the client's.
        return $this->client->request('GET', '/v1/balance', ['timeout' => 1.5]);
    }

    public function constants()
    {
        return $this->client->get('/v1/events', [RequestOptions::TIMEOUT => 8]);
    }
}

class Webhooks
{
    public function ping(string $url)
    {
        // A bare client: no total bound at all, libcurl's 300 s connect.
        $client = new Client();
        return $client->get('https://hooks.example.test/ping');
    }

    public function wrongArrays()
    {
        // Guzzle 5's 'defaults' array: Guzzle 6+ ignores it.
        $old = new Client(['defaults' => ['timeout' => 5]]);
        $old->get('https://old.example.test/');

        // 'timeout' as a header bounds nothing.
        $hdr = new \GuzzleHttp\Client(['headers' => ['timeout' => 5, 'Accept' => 'application/json']]);
        $hdr->post('https://hdr.example.test/');
    }

    public function milliseconds()
    {
        // 5000 meant as milliseconds: Guzzle reads seconds.
        $ms = new Client(['timeout' => 5000, 'connect_timeout' => 3]);
        return $ms->delete('https://ms.example.test/items/1');
    }

    public function readTimeout()
    {
        $curl = new Client(['timeout' => 30, 'read_timeout' => 10]);
        $curl->get('https://curl.example.test/');

        $stream = new Client(['handler' => HandlerStack::create(new StreamHandler()), 'timeout' => 30, 'read_timeout' => 10]);
        $stream->get('https://stream.example.test/');
    }
}

class Retrying
{
    private const MAX_RETRIES = 2;

    public function __construct(private ClientInterface $injected)
    {
    }

    public function injected()
    {
        // The container builds it: not followed.
        return $this->injected->get('/status');
    }

    public function literalDecider()
    {
        $stack = HandlerStack::create();
        $stack->push(Middleware::retry(function ($retries, $request, $response = null, $exception = null) {
            if ($retries >= self::MAX_RETRIES) {
                return false;
            }
            return $exception !== null || ($response && $response->getStatusCode() >= 500);
        }));
        $client = new Client(['handler' => $stack, 'timeout' => 10, 'connect_timeout' => 1]);
        return $client->post('https://retry.example.test/orders', ['json' => []]);
    }

    public function codeDecider()
    {
        $stack = HandlerStack::create();
        $stack->push(Middleware::retry($this->decider(), fn (int $n) => 200 * $n));
        $client = new Client(['handler' => $stack, 'timeout' => 10]);
        return $client->get('https://retry.example.test/orders');
    }

    private function decider(): callable
    {
        return function ($retries, $request, $response, $exception) {
            return $retries < $this->maxRetries() && $exception !== null;
        };
    }

    public function notCalls($request, $cache)
    {
        // Not HTTP calls: a Request's input, a cache, a collection.
        $name = $request->get('name');
        $v = $cache->get('key');
        $x = collect([1, 2])->get(0);
        $this->injected->get('/x')->getBody()->get();
        return [$name, $v, $x];
    }
}
