<?php

namespace App\Jobs;

use App\Services\PaymentGateway;
use GuzzleHttp\Client;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Support\Facades\Http;

// No $tries: the worker's --tries decides.
class SyncInventory implements ShouldQueue
{
    use Queueable;

    public function handle(): void
    {
        $this->push();
    }

    private function push(): void
    {
        Http::timeout(8)->post('https://inventory.example.test/sync', []);
    }
}

// retryUntil() overrides $tries: attempts by time.
class ChargeCustomer implements ShouldQueue
{
    use Queueable;

    public $tries = 3;

    public $backoff = [1, 5, 10];

    public $timeout = 120;

    public function __construct(private PaymentGateway $gateway)
    {
    }

    public function retryUntil()
    {
        return now()->addMinutes(10);
    }

    public function handle(): void
    {
        $this->gateway->charge(100);
    }
}

// $backoff in seconds, $tries a literal: a layer of 4 around a Guzzle call.
class SendInvoice implements ShouldQueue
{
    use Queueable;

    public int $tries = 4;

    public int $backoff = 30;

    public $maxExceptions = 10; // above $tries: no cap

    public function handle(PaymentGateway $gateway): void
    {
        $gateway->invoice('inv-1');
    }
}

// Not a job: no layer.
class Reporter
{
    public function send()
    {
        Http::timeout(2)->post('https://reports.example.test/', []);
    }
}

// $maxExceptions below $tries: a failure that throws is attempted 2 times.
class Refund implements ShouldQueue
{
    use Queueable;

    public $tries = 25;

    public $maxExceptions = 2;

    public function handle(PaymentGateway $gateway): void
    {
        $gateway->refund('ch_1');
    }
}
