<?php

namespace App\Services;

use Illuminate\Http\Client\ConnectionException;
use Illuminate\Http\Client\Factory;
use Illuminate\Http\Client\Response;

// The seeds' gateway: one call, classified; no retry here (the job retries).
final class HttpShippingGateway implements ShippingGateway
{
    public function __construct(
        private Factory $http,
        private string $baseUrl,
        private string $token,
    ) {
    }

    public function requestShipment(OrderId $orderId, string $idempotencyKey): void
    {
        try {
            $response = $this->http
                ->baseUrl($this->baseUrl)
                ->withToken($this->token)
                ->withHeaders(['Idempotency-Key' => $idempotencyKey])
                ->connectTimeout(2)
                ->timeout(5)   // the whole request, connect included
                ->post('/shipments', ['order_id' => $orderId->value]);
        } catch (ConnectionException $e) {
            throw new ShippingTemporarilyUnavailable($e->getMessage(), previous: $e);
        }

        if ($response->successful()) {
            return;
        }

        if ($response->status() === 429) {
            throw new ShippingRateLimited($this->retryAfterSeconds($response));
        }

        if (in_array($response->status(), [408, 409], true) || $response->serverError()) {
            throw new ShippingTemporarilyUnavailable("shipping api returned {$response->status()}");
        }

        throw new ShippingRequestRejected("shipping api rejected: {$response->status()}");
    }

    private function retryAfterSeconds(Response $response): int
    {
        $value = $response->header('Retry-After');

        return ctype_digit($value) ? max(1, (int) $value) : 60;
    }
}
