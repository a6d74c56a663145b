<?php

namespace App\Services;

use GuzzleHttp\Client;

class PaymentGateway
{
    private Client $http;

    public function __construct()
    {
        $this->http = new Client(['base_uri' => 'https://pay.example.test', 'timeout' => 10, 'connect_timeout' => 2]);
    }

    public function charge(int $amount)
    {
        return $this->http->post('/charges', ['json' => ['amount' => $amount]]);
    }

    public function invoice(string $id)
    {
        return $this->http->request('POST', "/invoices/{$id}/send");
    }

    public function refund(string $charge)
    {
        return $this->http->post("/charges/{$charge}/refund", ['headers' => ['Idempotency-Key' => 'refund-' . $charge]]);
    }
}
