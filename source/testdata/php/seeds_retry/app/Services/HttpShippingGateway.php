<?php

namespace App\Services;

use Illuminate\Support\Facades\Http;

// The seeds' anti-pattern: the gateway retries 3 times inside a job that tries 6 times —
// up to 18 requests reach the provider for one shipment.
final class HttpShippingGateway implements ShippingGateway
{
    public function requestShipment(OrderId $orderId, string $idempotencyKey): void
    {
        $response = Http::timeout(5)
            ->connectTimeout(2)
            ->retry(3, 100)
            ->post('https://shipping.example.test/shipments', ['order_id' => $orderId->value]);

        $response->throw();
    }
}
