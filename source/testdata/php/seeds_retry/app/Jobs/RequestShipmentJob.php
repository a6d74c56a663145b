<?php

namespace App\Jobs;

use App\Services\ShippingGateway;
use App\Services\ShippingRateLimited;
use App\Services\ShippingRequestRejected;
use App\Services\OrderId;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Throwable;

final class RequestShipmentJob implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public int $tries = 6;

    public int $timeout = 20;   // well above one call (5 s at most), a few seconds under retry_after

    public function __construct(public readonly string $orderId)
    {
    }

    /** @return list<int> */
    public function backoff(): array
    {
        // exponential, each job shifted a little (jitter)
        return array_map(
            fn (int $seconds): int => $seconds + random_int(0, intdiv($seconds, 4)),
            [10, 30, 90, 270, 600],
        );
    }

    public function handle(ShippingGateway $shipping): void
    {
        try {
            $shipping->requestShipment(
                new OrderId($this->orderId),
                idempotencyKey: "shipment-request:{$this->orderId}",
            );
        } catch (ShippingRateLimited $e) {
            $this->release($e->retryAfterSeconds);
        } catch (ShippingRequestRejected $e) {
            $this->fail($e);
        }
    }

    public function failed(Throwable $e): void
    {
    }
}
