import 'reflect-metadata';
import { Controller, Post } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { IDEMPOTENT_METADATA } from './idempotency.constants';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { Idempotent } from './idempotent.decorator';
import type { ResolvedIdempotentOptions } from './resolved-idempotent-options';

const HOUR = 3_600_000;

describe('@Idempotent', () => {
  it('stores the defaults and registers the interceptor on the route', () => {
    @Controller('pay')
    class PaymentsController {
      @Post()
      @Idempotent()
      create(): void {}
    }
    const handler = PaymentsController.prototype.create;
    expect(Reflect.getMetadata(IDEMPOTENT_METADATA, handler)).toEqual({
      required: false,
      ttlMs: 24 * HOUR,
      scope: '',
      leaseMs: 30_000,
      principal: undefined,
    } satisfies ResolvedIdempotentOptions);
    expect(Reflect.getMetadata(INTERCEPTORS_METADATA, handler)).toEqual([IdempotencyInterceptor]);
  });

  it('keeps the given options', () => {
    const principal = (request: { user: { id: string } }) => request.user.id;
    class RefundsController {
      @Idempotent({
        scope: 'refund',
        required: true,
        ttlMs: 30 * 24 * HOUR,
        leaseMs: 1000,
        principal,
      })
      refund(): void {}
    }
    expect(Reflect.getMetadata(IDEMPOTENT_METADATA, RefundsController.prototype.refund)).toEqual({
      required: true,
      ttlMs: 30 * 24 * HOUR,
      scope: 'refund',
      leaseMs: 1000,
      principal,
    });
  });

  it.each([
    ['shorter than an hour', HOUR - 1],
    ['longer than 30 days', 30 * 24 * HOUR + 1],
    ['not whole', 1.5 * HOUR + 0.5],
    ['zero', 0],
  ])('fails when the class is defined with a ttl %s', (_label, ttl) => {
    const define = () => {
      class BadController {
        @Idempotent({ ttlMs: ttl })
        create(): void {}
      }
      return BadController;
    };
    expect(define).toThrow(WebhookConfigurationError);
    expect(define).toThrow(
      /`ttlMs` must be a whole number of milliseconds from 3600000 \(1 hour\) to 2592000000 \(30 days\)/,
    );
  });

  it('accepts the ttl bounds themselves', () => {
    expect(() => Idempotent({ ttlMs: HOUR })).not.toThrow();
    expect(() => Idempotent({ ttlMs: 30 * 24 * HOUR })).not.toThrow();
  });

  it.each([
    ['a lease under a second', { leaseMs: 999 }, /`leaseMs` must be/],
    ['a lease over an hour', { leaseMs: HOUR + 1 }, /`leaseMs` must be/],
    ['a scope with a space', { scope: 'my scope' }, /`scope` must be at most 64/],
    ['a scope of 65 characters', { scope: 's'.repeat(65) }, /`scope` must be/],
    ['a principal that is not a function', { principal: 'user' }, /`principal` must be a function/],
    ['a required that is not a boolean', { required: 'yes' }, /`required` must be true or false/],
  ])('refuses %s', (_label, options, message) => {
    expect(() => Idempotent(options as never)).toThrow(message);
  });
});
