/**
 * better-sqlite3 binds only numbers, strings, bigints, buffers and null. This Kysely plugin turns
 * boolean parameters into 1/0 so repositories and the filter compiler can bind booleans on both dialects.
 */
import {
  OperationNodeTransformer,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
  type PrimitiveValueListNode,
} from 'kysely';

class BooleanToInteger extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = super.transformValue(node);
    return typeof value.value === 'boolean' ? { ...value, value: value.value ? 1 : 0 } : value;
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    const list = super.transformPrimitiveValueList(node);
    return { ...list, values: list.values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)) };
  }
}

export class SqliteValuesPlugin implements KyselyPlugin {
  readonly #transformer = new BooleanToInteger();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
