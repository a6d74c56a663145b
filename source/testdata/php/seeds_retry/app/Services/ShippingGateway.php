<?php

namespace App\Services;

interface ShippingGateway
{
    /**
     * @throws ShippingTemporarilyUnavailable the outcome is unknown: retry with the same key
     * @throws ShippingRateLimited            wait as told, then retry
     * @throws ShippingRequestRejected        refused: a retry gives the same answer
     */
    public function requestShipment(OrderId $orderId, string $idempotencyKey): void;
}
