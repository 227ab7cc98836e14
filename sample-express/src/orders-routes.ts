import { randomUUID } from 'node:crypto';
import { isUUID, validate } from 'class-validator';
import express, { Request, Response, Router } from 'express';
import type { WebhookTransactions } from 'nestjs-payment-webhooks/express';
import { CreateOrderDto } from '../../sample-app/src/orders/create-order.dto';
import { Order } from '../../sample-app/src/orders/order.entity';

type Transactions = Pick<WebhookTransactions, 'run'>;

/** A JSON error body shaped as the Nest shop's: `{ statusCode, message, error }`. */
function fail(response: Response, statusCode: 400 | 404, message: string | string[]): void {
  const error = statusCode === 400 ? 'Bad Request' : 'Not Found';
  response.status(statusCode).json({ message, error, statusCode });
}

/**
 * The body as a {@link CreateOrderDto}, or the validation messages: the same rules as the Nest
 * shop's ValidationPipe (`whitelist`, `forbidNonWhitelisted`), from the same class.
 */
async function createOrderDto(body: unknown): Promise<CreateOrderDto | string[]> {
  const input = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  const dto = Object.assign(new CreateOrderDto(), input);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length === 0) {
    return dto;
  }
  return errors.flatMap((error) => Object.values(error.constraints ?? {}));
}

function newOrder(dto: CreateOrderDto): Order {
  return {
    id: randomUUID(),
    amount: dto.amount,
    currency: dto.currency.toUpperCase(),
    state: 'pending',
    paidAt: null,
    fulfilments: 0,
    createdAt: new Date(),
    refundId: null,
    refundedAmount: null,
    refundedAt: null,
    paymentEndpoint: dto.paymentEndpoint ?? null,
    paymentRef: dto.paymentRef ?? null,
    merchant: null,
  };
}

/**
 * `POST /orders` and `GET /orders/:id`, as the Nest shop answers them. Reads and writes go
 * through the package's `WebhookTransactions`: one transaction on either database, and on
 * SQLite never inside a payment handler's open transaction.
 */
export function ordersRoutes(transactions: Transactions): Router {
  const router = express.Router();
  router.post('/', async (request: Request, response: Response) => {
    const dto = await createOrderDto(request.body);
    if (Array.isArray(dto)) {
      fail(response, 400, dto);
      return;
    }
    const order = newOrder(dto);
    await transactions.run((manager) => manager.insert(Order, order));
    response.status(201).json(order);
  });
  router.get('/:id', async (request: Request, response: Response) => {
    const { id } = request.params;
    if (!isUUID(id)) {
      fail(response, 400, 'Validation failed (uuid is expected)');
      return;
    }
    const order = await transactions.run((manager) => manager.findOneBy(Order, { id }));
    if (!order) {
      fail(response, 404, `Order ${id} not found`);
      return;
    }
    response.json(order);
  });
  return router;
}
