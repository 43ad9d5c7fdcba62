//! Values between rusqlite's types and PostgreSQL's wire format: a parameter is sent as
//! the type its value has (or the type the server asked for, when the value is NULL), and
//! a column comes back as the SQLite value it would have been, so rusqlite's own
//! conversions read it.

use super::{Error, Result};
use bytes::BytesMut;
use postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use std::error::Error as StdError;

type BoxError = Box<dyn StdError + Sync + Send>;

/// A parameter's value, owned.
#[derive(Debug)]
pub(crate) enum PgParam {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl PgParam {
    pub(crate) fn from_value(v: &dyn rusqlite::ToSql) -> Result<PgParam> {
        let owned = |r: ValueRef<'_>| -> Result<PgParam> {
            Ok(match r {
                ValueRef::Null => PgParam::Null,
                ValueRef::Integer(i) => PgParam::Integer(i),
                ValueRef::Real(f) => PgParam::Real(f),
                ValueRef::Text(t) => PgParam::Text(
                    String::from_utf8(t.to_vec()).map_err(|e| Error::Failed(e.to_string()))?,
                ),
                ValueRef::Blob(b) => PgParam::Blob(b.to_vec()),
            })
        };
        match v.to_sql()? {
            ToSqlOutput::Borrowed(r) => owned(r),
            ToSqlOutput::Owned(v) => match v {
                Value::Null => Ok(PgParam::Null),
                Value::Integer(i) => Ok(PgParam::Integer(i)),
                Value::Real(f) => Ok(PgParam::Real(f)),
                Value::Text(t) => Ok(PgParam::Text(t)),
                Value::Blob(b) => Ok(PgParam::Blob(b)),
            },
            _ => Err(Error::Failed("a parameter PostgreSQL cannot take".into())),
        }
    }

    /// The type the statement is prepared with; NULL leaves it to the server.
    pub(crate) fn declared_type(&self) -> Type {
        match self {
            PgParam::Null => Type::new(
                "unspecified".into(),
                0,
                postgres::types::Kind::Pseudo,
                "pg_catalog".into(),
            ),
            PgParam::Integer(_) => Type::INT8,
            PgParam::Real(_) => Type::FLOAT8,
            PgParam::Text(_) => Type::TEXT,
            PgParam::Blob(_) => Type::BYTEA,
        }
    }
}

fn mismatch(value: &PgParam, ty: &Type) -> BoxError {
    format!("cannot send {value:?} as {ty}").into()
}

impl ToSql for PgParam {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> std::result::Result<IsNull, BoxError> {
        let textual = [
            Type::TEXT,
            Type::VARCHAR,
            Type::BPCHAR,
            Type::NAME,
            Type::JSON,
        ];
        match self {
            PgParam::Null => Ok(IsNull::Yes),
            PgParam::Integer(i) => match ty {
                t if *t == Type::INT8 => i.to_sql(ty, out),
                t if *t == Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                t if *t == Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                t if *t == Type::BOOL => (*i != 0).to_sql(ty, out),
                t if *t == Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                t if textual.contains(t) => i.to_string().as_str().to_sql(ty, out),
                _ => Err(mismatch(self, ty)),
            },
            PgParam::Real(f) => match ty {
                t if *t == Type::FLOAT8 => f.to_sql(ty, out),
                t if *t == Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                t if textual.contains(t) => f.to_string().as_str().to_sql(ty, out),
                _ => Err(mismatch(self, ty)),
            },
            PgParam::Text(s) => match ty {
                t if textual.contains(t) => s.as_str().to_sql(ty, out),
                t if *t == Type::JSONB => {
                    out.extend_from_slice(&[1]);
                    out.extend_from_slice(s.as_bytes());
                    Ok(IsNull::No)
                }
                _ => Err(mismatch(self, ty)),
            },
            PgParam::Blob(b) => match ty {
                t if *t == Type::BYTEA => b.as_slice().to_sql(ty, out),
                _ => Err(mismatch(self, ty)),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// A column as SQLite would have held it.
struct Raw<'a>(ValueRef<'a>);

impl<'a> FromSql<'a> for Raw<'a> {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> std::result::Result<Raw<'a>, BoxError> {
        let int = |bytes: &[u8]| -> std::result::Result<i64, BoxError> {
            Ok(match bytes.len() {
                8 => i64::from_be_bytes(bytes.try_into()?),
                4 => i64::from(i32::from_be_bytes(bytes.try_into()?)),
                2 => i64::from(i16::from_be_bytes(bytes.try_into()?)),
                n => return Err(format!("an integer of {n} bytes").into()),
            })
        };
        Ok(Raw(match ty.oid() {
            20 | 21 | 23 => ValueRef::Integer(int(raw)?),
            26 => ValueRef::Integer(i64::from(u32::from_be_bytes(raw.try_into()?))),
            16 => ValueRef::Integer(i64::from(raw.first().is_some_and(|b| *b != 0))),
            700 => ValueRef::Real(f64::from(f32::from_be_bytes(raw.try_into()?))),
            701 => ValueRef::Real(f64::from_be_bytes(raw.try_into()?)),
            1700 => numeric(raw)?,
            17 => ValueRef::Blob(raw),
            3802 => ValueRef::Text(raw.get(1..).unwrap_or_default()),
            25 | 1043 | 1042 | 19 | 18 | 114 | 705 => ValueRef::Text(raw),
            _ => return Err(format!("a column of type {ty}").into()),
        }))
    }

    fn from_sql_null(_: &Type) -> std::result::Result<Raw<'a>, BoxError> {
        Ok(Raw(ValueRef::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// PostgreSQL's NUMERIC (what `sum` of integers gives) as an integer when it is one.
fn numeric(raw: &[u8]) -> std::result::Result<ValueRef<'static>, BoxError> {
    let word = |i: usize| -> std::result::Result<i16, BoxError> {
        let b = raw.get(i * 2..i * 2 + 2).ok_or("a short numeric")?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    };
    let digits = usize::try_from(word(0)?)?;
    let weight = i32::from(word(1)?);
    let sign = word(2)? as u16;
    let scale = word(3)?;
    if sign == 0xC000 {
        return Ok(ValueRef::Real(f64::NAN));
    }
    let mut value = 0f64;
    let mut whole: i128 = 0;
    for i in 0..digits {
        let d = word(4 + i)?;
        let power = weight - i as i32;
        value += f64::from(d) * 10_000f64.powi(power);
        if power >= 0 {
            whole = whole.saturating_mul(10_000).saturating_add(i128::from(d));
        }
    }
    if digits > 0 {
        let last_power = weight - (digits as i32 - 1);
        if last_power > 0 {
            whole = whole.saturating_mul(10_000i128.saturating_pow(last_power as u32));
        }
    }
    let negative = sign == 0x4000;
    if scale == 0 {
        let whole = if negative { -whole } else { whole };
        if let Ok(i) = i64::try_from(whole) {
            return Ok(ValueRef::Integer(i));
        }
    }
    Ok(ValueRef::Real(if negative { -value } else { value }))
}

fn raw<'r>(row: &'r postgres::Row, idx: usize) -> Result<ValueRef<'r>> {
    if idx >= row.len() {
        return Err(Error::Sqlite(rusqlite::Error::InvalidColumnIndex(idx)));
    }
    Ok(row.try_get::<usize, Raw<'r>>(idx)?.0)
}

pub(crate) fn get_ref(row: &postgres::Row, idx: usize) -> Result<ValueRef<'_>> {
    raw(row, idx)
}

/// Column `idx` converted by rusqlite's rules, failing as rusqlite would.
pub(crate) fn get<T: rusqlite::types::FromSql>(row: &postgres::Row, idx: usize) -> Result<T> {
    let value = raw(row, idx)?;
    T::column_result(value).map_err(|e| {
        use rusqlite::types::FromSqlError as F;
        Error::Sqlite(match e {
            F::InvalidType => rusqlite::Error::InvalidColumnType(
                idx,
                row.columns()
                    .get(idx)
                    .map(|c| c.name().to_string())
                    .unwrap_or_default(),
                value.data_type(),
            ),
            F::OutOfRange(i) => rusqlite::Error::IntegralValueOutOfRange(idx, i),
            e => rusqlite::Error::FromSqlConversionFailure(idx, value.data_type(), Box::new(e)),
        })
    })
}
